"""The model module of tf1x_style.py, imported by it as TF 1.x programs
imported their own modules: with ``import tensorflow as tf``."""

import tensorflow as tf


def regressor(x, hidden):
    net = tf.layers.dense(x, hidden, activation=tf.nn.relu, name="hidden")
    return tf.layers.dense(net, 1, name="out")
