"""A TF1 image classifier on ``tf.contrib.layers``, written as countless TF1
code bases wrote theirs: ``xavier_initializer``, ``l2_regularizer`` on every
weight, ``conv2d`` with ``batch_norm`` as its ``normalizer_fn``,
``max_pool2d``, ``flatten``, ``fully_connected``, ``dropout``, under
``tf.contrib.framework.arg_scope``. For
``--model=tests.user_models.contrib_layers:build``.

Unmodified TF1 code apart from the first two lines and the compat.v1 import
(``tf.contrib`` is gone in TensorFlow 2 until ``tf1_train.compat.install()``
has run, which serves it from tf-slim).
"""

import tf1_train.compat

tf1_train.compat.install()

import tensorflow.compat.v1 as tf  # noqa: E402 (after install(), as a user writes it)

WEIGHT_DECAY = 1e-3  # l2_regularizer: WEIGHT_DECAY * sum(w**2) / 2 per weight
BN_DECAY = 0.9  # contrib's 0.999 would barely move in a few steps


def build(images, is_training, num_classes):
    layers = tf.contrib.layers
    regularizer = layers.l2_regularizer(WEIGHT_DECAY)
    with tf.contrib.framework.arg_scope(
        [layers.conv2d, layers.fully_connected],
        weights_initializer=layers.xavier_initializer(),
        weights_regularizer=regularizer,
    ):
        net = layers.conv2d(
            images, 8, 3, normalizer_fn=layers.batch_norm,
            normalizer_params={"is_training": is_training, "decay": BN_DECAY},
        )  # fmt: skip
        net = layers.max_pool2d(net, 2)
        net = layers.flatten(net)
        net = layers.fully_connected(net, 32)
        net = layers.dropout(net, keep_prob=0.9, is_training=is_training)
        return layers.fully_connected(net, num_classes, activation_fn=None)


def sequence(images, is_training, num_classes):
    """A text model's front end on the same images: each row's pixels
    bucketed into 16 ids, ``embed_sequence`` (with ``unique=True``, as
    models with repeated tokens used it), mean over the row, one dense layer."""
    del is_training
    ids = tf.cast(tf.clip_by_value(tf.reduce_mean(images, axis=3) * 4 + 8, 0, 15), tf.int32)
    flat = tf.reshape(ids, [-1, int(ids.shape[2])])  # [batch * height, width]
    embedded = tf.contrib.layers.embed_sequence(flat, 16, 6, unique=True)
    rows = tf.reduce_mean(embedded, axis=1)
    per_image = tf.reshape(rows, [-1, int(ids.shape[1]) * 6])
    return tf.contrib.layers.fully_connected(per_image, num_classes, activation_fn=None)


def feature_columns(images, is_training, num_classes):
    """A TF1 wide model's first line: contrib's feature columns, which
    tf-slim does not have: one --model error line naming where they went."""
    del is_training
    column = tf.contrib.layers.real_valued_column("pixels", dimension=64)
    inputs = tf.contrib.layers.input_from_feature_columns({"pixels": images}, [column])
    return tf.contrib.layers.fully_connected(inputs, num_classes, activation_fn=None)
