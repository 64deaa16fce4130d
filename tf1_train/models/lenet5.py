"""LeNet-5 (LeCun et al. 1998) with ReLU and max pooling.

SAME padding keeps it usable on any input size: 8x8 digits become 4x4 then
2x2 feature maps, 28x28 MNIST 14x14 then 7x7, 32x32 CIFAR-10 16x16 then 8x8.
"""

import tensorflow as tf

from tf1_train.models import layers


def build(images: tf.Tensor, is_training: bool, num_classes: int) -> tf.Tensor:
    """Returns logits for NHWC ``images``; ``is_training`` is unused (no BN)."""
    del is_training
    x = tf.nn.relu(layers.conv2d(images, 6, 5, "conv1"))
    x = layers.max_pool(x)
    x = tf.nn.relu(layers.conv2d(x, 16, 5, "conv2"))
    x = layers.max_pool(x)
    x = layers.flatten(x)
    x = layers.dense(x, 120, "fc3", tf.nn.relu)
    x = layers.dense(x, 84, "fc4", tf.nn.relu)
    return layers.dense(x, num_classes, "logits")
