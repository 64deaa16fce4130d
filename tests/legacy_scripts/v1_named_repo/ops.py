"""Layers the way many TF 1.x image classifiers wrote theirs (taki0112's
ResNet-Tensorflow and its copies), with TensorFlow 1.x's names: ``tf.layers``
with a ``tf.contrib.layers`` initializer and L2 regularizer on every kernel,
``tf.contrib.layers.batch_norm`` updating its statistics in place
(``updates_collections=None``), ``tf.variable_scope``. Written for
tf1_train's tests, not taken from that code; ``import tensorflow as tf`` as on
TF 1.x, so it runs on TensorFlow 2 only through ``python -m tf1_train.compat
--v1``.
"""

import tensorflow as tf
import tensorflow.contrib as tf_contrib

weight_init = tf_contrib.layers.variance_scaling_initializer()
weight_regularizer = tf_contrib.layers.l2_regularizer(0.0001)


def conv(x, channels, kernel=3, stride=1, scope="conv_0"):
    with tf.variable_scope(scope):
        return tf.layers.conv2d(
            x,
            channels,
            kernel,
            strides=stride,
            padding="SAME",
            kernel_initializer=weight_init,
            kernel_regularizer=weight_regularizer,
        )


def fully_connected(x, units, scope="fully_0"):
    with tf.variable_scope(scope):
        x = tf.layers.flatten(x)
        return tf.layers.dense(
            x, units, kernel_initializer=weight_init, kernel_regularizer=weight_regularizer
        )


def batch_norm(x, is_training, scope):
    return tf_contrib.layers.batch_norm(
        x,
        decay=0.9,
        epsilon=1e-05,
        center=True,
        scale=True,
        updates_collections=None,
        is_training=is_training,
        scope=scope,
    )


def resblock(x_init, channels, is_training, downsample=False, scope="resblock"):
    with tf.variable_scope(scope):
        x = tf.nn.relu(batch_norm(x_init, is_training, scope="batch_norm_0"))
        if downsample:
            x = conv(x, channels, stride=2, scope="conv_0")
            x_init = conv(x_init, channels, kernel=1, stride=2, scope="conv_init")
        else:
            x = conv(x, channels, scope="conv_0")
        x = tf.nn.relu(batch_norm(x, is_training, scope="batch_norm_1"))
        x = conv(x, channels, scope="conv_1")
        return x + x_init
