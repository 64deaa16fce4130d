"""A small pre-activation ResNet on ops.py, as a tf1_train model function
(``--model=resnet:build``, run from this directory): what a porter writes
around such a code base's ``network()``, in its own TF 1.x names."""

import tensorflow as tf
from ops import batch_norm, conv, fully_connected, resblock


def build(images, is_training, num_classes):
    with tf.variable_scope("network"):
        x = conv(images, 8, scope="conv")
        x = resblock(x, 8, is_training, scope="resblock0_0")
        x = resblock(x, 16, is_training, downsample=True, scope="resblock1_0")
        x = tf.nn.relu(batch_norm(x, is_training, scope="batch_norm"))
        x = tf.reduce_mean(x, axis=[1, 2], keepdims=True)
        return fully_connected(x, num_classes, scope="logit")
