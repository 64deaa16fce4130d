"""Users' --preprocess functions for the embedded 8x8 digits, good and bad."""

import tensorflow as tf


def crop_flip(image, label, is_training, seed):
    """Random 6x6 crop and flip for training, the central 6x6 for evaluation,
    then centred on zero: stateless ops seeded by ``seed``."""
    if is_training:
        crop, flip = tf.unstack(tf.random.experimental.stateless_split(seed, 2))
        image = tf.image.stateless_random_crop(image, [6, 6, 1], seed=crop)
        image = tf.image.stateless_random_flip_left_right(image, seed=flip)
    else:
        image = tf.image.resize_with_crop_or_pad(image, 6, 6)
    return image - 0.5, label


def changes_label(image, label, is_training, seed):
    return image, (label + 1) % 10


def flattens(image, label, is_training, seed):
    return tf.reshape(image, [-1]), label


def raises(image, label, is_training, seed):
    raise ValueError("expected a 32x32 image")


def random_size(image, label, is_training, seed):
    """A crop whose size is drawn per example: batches cannot hold it."""
    size = tf.random.stateless_uniform([], seed, 4, 8, tf.int32)
    return tf.image.resize(image, [size, size]), label


def tutorial_style(image, label, is_training, seed):
    """The TF1 tutorials' augmentation: stateful random ops, seed unused."""
    if is_training:
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_brightness(image, max_delta=0.2)
    return image, label
