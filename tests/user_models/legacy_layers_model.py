"""A user's model written with legacy layers: ``build(images, is_training,
num_classes) -> logits`` for ``--model=tests.user_models.legacy_layers_model:build``.

Every variable comes from tf1_train.compat.layers (get_variable underneath),
so the tower trainer's ``variable_scope(reuse=True)`` shares them across
towers, and each batch norm puts its moving-average updates in UPDATE_OPS
under the tower's name scope.
"""

import tensorflow as tf

from tf1_train.compat import layers


def build(images: tf.Tensor, is_training, num_classes: int) -> tf.Tensor:
    """conv-bn-pool, conv-bn, dense + dropout, logits; NHWC ``images``."""
    net = layers.conv2d(images, 16, 3, padding="same", activation=tf.nn.relu, name="conv1")
    net = layers.batch_normalization(net, training=is_training, name="bn1")
    net = layers.max_pooling2d(net, 2, 2, padding="same")
    net = layers.conv2d(net, 32, 3, padding="same", name="conv2")
    net = tf.nn.relu(layers.batch_normalization(net, training=is_training, name="bn2"))
    net = layers.flatten(net)
    net = layers.dense(
        net,
        64,
        activation=tf.nn.relu,
        kernel_regularizer=lambda w: 1e-3 * tf.nn.l2_loss(w),  # contrib's l2_regularizer
        name="fc1",
    )
    net = layers.dropout(net, rate=0.25, training=is_training)
    return layers.dense(net, num_classes, name="logits")
