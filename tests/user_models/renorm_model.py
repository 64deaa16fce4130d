"""A user's model with batch renormalization, as dhSegment's ResNet and other
2017-2019 code bases turned it on: ``tf.layers.batch_normalization(...,
renorm=True, renorm_clipping=...)`` with the clipping ramped in by the
paper's schedule, here fixed. ``--model=tests.user_models.renorm_model:build``.

The tensor each batch norm normalizes is named ``<layer>_input`` so tests
can fetch a tower's batch.
"""

import tensorflow as tf

from tf1_train.compat import layers

CLIPPING = {"rmax": 3.0, "rmin": 1 / 3.0, "dmax": 5.0}  # the paper's end values
RENORM_MOMENTUM = 0.9
MOMENTUM = 0.8


def _renorm(net, is_training, name):
    net = tf.identity(net, name=f"{name}_input")
    return layers.batch_normalization(
        net, training=is_training, renorm=True, renorm_clipping=CLIPPING,
        renorm_momentum=RENORM_MOMENTUM, momentum=MOMENTUM, name=name,
    )  # fmt: skip


def build(images: tf.Tensor, is_training, num_classes: int) -> tf.Tensor:
    """conv-renorm-relu-pool, dense-renorm-relu, logits; NHWC ``images``."""
    net = layers.conv2d(images, 8, 3, padding="same", use_bias=False, name="conv1")
    net = tf.nn.relu(_renorm(net, is_training, "bn1"))
    net = layers.max_pooling2d(net, 2, 2, padding="same")
    net = layers.dense(layers.flatten(net), 32, use_bias=False, name="fc1")
    net = tf.nn.relu(_renorm(net, is_training, "bn2"))
    return layers.dense(net, num_classes, name="logits")
