"""Users' model functions that go wrong in the ways the bad-input table lists."""

import tensorflow as tf


def raises(images, is_training, num_classes):
    raise ValueError("this model was written for 224x224 images")


def returns_a_list(images, is_training, num_classes):
    return [tf.zeros([1, num_classes])]


def feeds_keep_prob(images, is_training, num_classes):
    """The classic TF1 MNIST pattern: a placeholder the training loop fed."""
    keep_prob = tf.compat.v1.placeholder(tf.float32, name="keep_prob")
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    w = tf.compat.v1.get_variable("w", [int(x.shape[-1]), num_classes])
    return tf.matmul(tf.nn.dropout(x, rate=1 - keep_prob), w)


def feeds_labels(images, is_training, num_classes):
    """CapsNet's evaluation graph: the labels its decoder masks with, fed."""
    labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    w = tf.compat.v1.get_variable("w", [int(x.shape[-1]), num_classes])
    return tf.matmul(x, w) * (1.0 + 0.0 * tf.one_hot(labels, num_classes))


def _flat(images):
    return tf.reshape(images, [-1, int(images.shape[1:].num_elements())])


def seven_classes(images, is_training, num_classes):
    """Written for a dataset with 7 classes."""
    x = _flat(images)
    return tf.matmul(x, tf.compat.v1.get_variable("w", [int(x.shape[-1]), 7]))


def rank3_logits(images, is_training, num_classes):
    x = _flat(images)
    logits = tf.matmul(x, tf.compat.v1.get_variable("w", [int(x.shape[-1]), num_classes]))
    return tf.expand_dims(logits, 1)


def int_logits(images, is_training, num_classes):
    return tf.zeros([tf.shape(images)[0], num_classes], tf.int32)


def no_variables(images, is_training, num_classes):
    return tf.zeros([tf.shape(images)[0], num_classes])


def legacy_layers(images, is_training, num_classes):
    """tf.layers without tf1_train.compat.install(): raises under Keras 3."""
    return tf.compat.v1.layers.dense(_flat(images), num_classes)


def legacy_rnn_cell(images, is_training, num_classes):
    """tf.nn.rnn_cell without tf1_train.compat.install(): raises under Keras 3."""
    cell = tf.compat.v1.nn.rnn_cell.LSTMCell(8)
    rows = tf.reduce_mean(images, axis=3)
    outputs, _ = tf.compat.v1.nn.dynamic_rnn(cell, rows, dtype=tf.float32)
    return tf.compat.v1.layers.dense(outputs[:, -1], num_classes)


def renorm_clipping_typo(images, is_training, num_classes):
    """Batch renormalization with a clipping key written as the paper prints it."""
    from tf1_train.compat import layers

    net = layers.flatten(images)
    net = layers.batch_normalization(
        net, training=is_training, renorm=True, renorm_clipping={"r_max": 3.0}
    )
    return layers.dense(net, num_classes)


def column_loss(labels, logits):
    """Per-example cross-entropy as a [batch, 1] column."""
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.expand_dims(xent, 1)


def int_loss(labels, logits):
    return tf.reduce_sum(labels)


def constant_loss(labels, logits):
    return tf.constant(1.0)


def onehot_loss(labels, logits):
    """Written for one-hot labels: the integer labels do not fit."""
    return tf.compat.v1.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)


def conds_on_is_training(images, is_training, num_classes):
    """TF1 code that fed is_training as a tensor: tf.cond refuses a Python bool."""
    x = _flat(images)
    x = tf.cond(is_training, lambda: tf.nn.dropout(x, rate=0.5), lambda: x)
    return tf.matmul(x, tf.compat.v1.get_variable("w", [int(x.shape[-1]), num_classes]))


def starts_from_initialized_value(images, is_training, num_classes):
    """TF 1.x's variables guide: a variable whose initial value reads another."""
    x = _flat(images)
    w = tf.compat.v1.get_variable("w", [int(x.shape[-1]), num_classes])
    w_start = tf.compat.v1.Variable(w.initialized_value(), trainable=False, name="w_start")
    return tf.matmul(x, w) + 0.0 * tf.reduce_sum(w_start)


def tf1_names(images, is_training, num_classes):
    """A TF 1.x model in its own names: TensorFlow 2 has no tf.variable_scope."""
    with tf.variable_scope("network"):
        return tf.compat.v1.layers.dense(_flat(images), num_classes)


def dimension_value(images, is_training, num_classes):
    """TF 1.x's flatten size: its shapes held Dimension objects."""
    n_in = images.get_shape()[1].value * images.get_shape()[2].value
    w = tf.compat.v1.get_variable("w", [n_in, num_classes])
    return tf.matmul(tf.reshape(images, [-1, n_in]), w)
