"""A TF 1.x model module's imports, without tf1_train.compat.install() first:
TensorFlow 2 has no ``tensorflow.contrib``, so importing it fails."""

import tensorflow.contrib.slim as slim


def build(images, is_training, num_classes):
    return slim.fully_connected(slim.flatten(images), num_classes, activation_fn=None)
