"""A classifier sized the TF 1.x way, from ``x.get_shape()[i].value`` (TF 1.x's
shapes held ``Dimension`` objects; TF 2's hold ints): it needs TF 1.x's shapes,
``python -m tf1_train.compat --v1 --v1_shapes -m tf1_train.main``."""

import tensorflow as tf


def build(images, is_training, num_classes):
    shape = images.get_shape()
    n_in = shape[1].value * shape[2].value * shape[3].value
    x = tf.reshape(images, [-1, n_in])
    w = tf.get_variable("w", [x.get_shape()[1].value, num_classes])
    b = tf.get_variable("b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(x, w, b)
