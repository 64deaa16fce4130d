"""A two-hidden-layer perceptron: the smallest model worth distributing."""

import tensorflow as tf

from tf1_train.models import layers


def build(images: tf.Tensor, is_training: bool, num_classes: int) -> tf.Tensor:
    """Returns logits for NHWC ``images``; ``is_training`` is unused (no BN)."""
    del is_training
    x = layers.flatten(images)
    x = layers.dense(x, 256, "fc1", tf.nn.relu)
    x = layers.dense(x, 128, "fc2", tf.nn.relu)
    return layers.dense(x, num_classes, "logits")
