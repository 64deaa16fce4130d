"""The CIFAR-10 ResNets of He et al. 2016 ("Deep Residual Learning", section 4.2).

A 3x3 convolution with 16 filters, then 3 stages of n basic blocks with
16, 32 and 64 filters (feature maps 32, 16, 8 on CIFAR-10), global average
pooling and a fully connected layer: 6n + 2 weighted layers, so n = 3, 5, 9
give resnet20, resnet32, resnet56 (0.27M, 0.46M, 0.85M parameters). A basic
block is conv3x3-BN-ReLU-conv3x3-BN, plus the shortcut, then ReLU. The
first block of stages 2 and 3 halves the feature map with stride 2 and uses
a projection shortcut (1x1 convolution with stride 2, then BN; the paper's
option B); every other shortcut is the identity.

Convolutions have no bias (batch norm's beta is the bias) and He-normal
initial weights; kernels are named ``weights``, so weight decay applies to
them and to the fc kernel only, never to BN's beta and gamma.
"""

from __future__ import annotations

import tensorflow as tf

from tf1_train.models import layers

v1 = tf.compat.v1

STAGE_FILTERS = (16, 32, 64)


def _conv_bn(x, filters, kernel, stride, is_training, name):
    with v1.variable_scope(name):
        x = layers.conv2d(
            x, filters, kernel, "conv", stride, use_bias=False, kernel_init=layers.he_normal
        )
        return layers.batch_norm(x, is_training, "bn")


def _block(x, filters, stride, is_training, name):
    with v1.variable_scope(name):
        shortcut = x
        if stride != 1 or int(x.shape[-1]) != filters:
            shortcut = _conv_bn(x, filters, 1, stride, is_training, "projection")
        y = tf.nn.relu(_conv_bn(x, filters, 3, stride, is_training, "a"))
        y = _conv_bn(y, filters, 3, 1, is_training, "b")
        return tf.nn.relu(y + shortcut)


def resnet(images: tf.Tensor, is_training: bool, num_classes: int, n: int) -> tf.Tensor:
    """Logits of the 6n+2-layer CIFAR ResNet for NHWC ``images``."""
    x = tf.nn.relu(_conv_bn(images, STAGE_FILTERS[0], 3, 1, is_training, "init"))
    for stage, filters in enumerate(STAGE_FILTERS):
        for block in range(n):
            stride = 2 if stage > 0 and block == 0 else 1
            x = _block(x, filters, stride, is_training, f"stage{stage + 1}/block{block + 1}")
    x = tf.reduce_mean(x, axis=[1, 2], name="global_pool")
    return layers.dense(x, num_classes, "logits", kernel_init=layers.he_normal)


def build_resnet20(images: tf.Tensor, is_training: bool, num_classes: int) -> tf.Tensor:
    """n = 3 blocks per stage."""
    return resnet(images, is_training, num_classes, 3)


def build_resnet32(images: tf.Tensor, is_training: bool, num_classes: int) -> tf.Tensor:
    """n = 5 blocks per stage."""
    return resnet(images, is_training, num_classes, 5)


def build_resnet56(images: tf.Tensor, is_training: bool, num_classes: int) -> tf.Tensor:
    """n = 9 blocks per stage."""
    return resnet(images, is_training, num_classes, 9)
