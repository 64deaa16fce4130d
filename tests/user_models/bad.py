"""Users' model functions that go wrong in the ways the bad-input table lists."""

import tensorflow as tf


def raises(images, is_training, num_classes):
    raise ValueError("this model was written for 224x224 images")


def returns_a_list(images, is_training, num_classes):
    return [tf.zeros([1, num_classes])]
