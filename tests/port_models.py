"""A user's TF1 model with conv, batch norm and dense, and Keras 3 ports of it,
for tests/test_port_check.py: one faithful port and one fault per variant.

The TF1 model uses tf1_train.compat.layers (the v1 layers' names and
defaults: batch-norm momentum 0.99, epsilon 1e-3, fused kernel); the port
names its layers the same, so Keras ``variable.path`` ``conv/kernel`` is the
TF1 ``conv/kernel`` without any map.
"""

import keras
import tensorflow as tf

from tf1_train.compat import layers

v1 = tf.compat.v1


def tf1_model(images, is_training, num_classes):
    """conv 3x3x4 stride 4 -> batch norm -> ReLU -> dense logits.

    On 8x8 digits the batch norm sees 2x2 per example: 64 values per channel
    in a batch of 16, so v1's unbiased variance is 64/63 of Keras's biased one.
    """
    net = layers.conv2d(images, 4, 3, strides=4, padding="same", name="conv")
    net = tf.nn.relu(layers.batch_normalization(net, training=is_training, name="bn"))
    return layers.dense(layers.flatten(net), num_classes, name="dense")


def tf1_model_l2(images, is_training, num_classes):
    """The same with weight decay on the conv kernel: 0.01 * tf.nn.l2_loss (sum/2)."""
    decay = lambda w: 0.01 * tf.nn.l2_loss(w)  # noqa: E731
    net = layers.conv2d(
        images, 4, 3, strides=4, padding="same", kernel_regularizer=decay, name="conv"
    )
    net = tf.nn.relu(layers.batch_normalization(net, training=is_training, name="bn"))
    return layers.dense(layers.flatten(net), num_classes, name="dense")


def tf1_model_transposed(images, is_training, num_classes):
    """The same, its dense kernel stored [num_classes, inputs] (matmul transpose_b)."""
    net = layers.conv2d(images, 4, 3, strides=4, padding="same", name="conv")
    net = tf.nn.relu(layers.batch_normalization(net, training=is_training, name="bn"))
    net = layers.flatten(net)
    with v1.variable_scope("dense"):
        kernel = v1.get_variable("kernel", [num_classes, int(net.shape[-1])])
        bias = v1.get_variable("bias", [num_classes], initializer=v1.zeros_initializer())
    return tf.matmul(net, kernel, transpose_b=True) + bias


def keras_port(input_shape, num_classes, momentum=0.99, offset=0.0, epsilon=1e-3):
    """The Keras 3 port a porter writes (Keras defaults: BN momentum 0.99, epsilon 1e-3)."""
    inputs = keras.Input(shape=input_shape)
    x = keras.layers.Conv2D(4, 3, strides=4, padding="same", name="conv")(inputs)
    x = keras.layers.BatchNormalization(momentum=momentum, epsilon=epsilon, name="bn")(x)
    x = keras.layers.Flatten()(keras.layers.ReLU()(x))
    x = keras.layers.Dense(num_classes, name="dense")(x)
    if offset:
        x = keras.layers.Rescaling(1.0, offset=offset, name="offset")(x)
    return keras.Model(inputs, x, name="port")


def keras_port_momentum_09(input_shape, num_classes):
    return keras_port(input_shape, num_classes, momentum=0.9)


def keras_port_offset(input_shape, num_classes):
    return keras_port(input_shape, num_classes, offset=0.5)


def summed_loss(labels, logits):
    """Cross-entropy summed over the batch (where TF1 takes the mean)."""
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.reduce_sum(xent)


def keras_port_epsilon(input_shape, num_classes):
    """Batch norm with tf_cnn_benchmarks' epsilon 1e-5 where the TF1 layer has 1e-3."""
    return keras_port(input_shape, num_classes, epsilon=1e-5)


def keras_port_dropout(input_shape, num_classes):
    """A Dropout the TF1 model does not have."""
    inputs = keras.Input(shape=input_shape)
    x = keras.layers.Conv2D(4, 3, strides=4, padding="same", name="conv")(inputs)
    x = keras.layers.BatchNormalization(name="bn")(x)
    x = keras.layers.Dropout(0.5)(keras.layers.Flatten()(keras.layers.ReLU()(x)))
    return keras.Model(inputs, keras.layers.Dense(num_classes, name="dense")(x), name="port")


def global_batch_loss(labels, logits):
    """``compute_average_loss`` given the global batch of two towers, where each
    tower's loss is its own mean (a MirroredStrategy loop's per-replica loss)."""
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.nn.compute_average_loss(xent, global_batch_size=2 * tf.shape(xent)[0])
