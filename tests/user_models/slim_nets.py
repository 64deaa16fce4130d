"""A user's wrappers around tf-slim's nets (``tf_slim.nets``), written as a
porting user writes them: ``build(images, is_training, num_classes)`` for
``--model=tests.user_models.slim_nets:resnet``.

The nets are tf-slim's own code, run unchanged: ``arg_scope`` with the net's
``resnet_arg_scope`` (an L2 ``weights_regularizer`` on every conv:
REGULARIZATION_LOSSES; slim ``batch_norm`` with its updates in UPDATE_OPS),
``end_points`` dicts, MODEL_VARIABLES, logits of shape [batch, 1, 1, classes]
squeezed as tf-slim's ``spatial_squeeze`` did. Small widths keep them CPU-fast.
"""

import tf1_train.compat

tf1_train.compat.install()  # tf-slim's batch_norm needs the legacy layer

import tensorflow as tf  # noqa: E402
import tf_slim as slim  # noqa: E402
from tf_slim.nets import resnet_v1, resnet_v2  # noqa: E402

WEIGHT_DECAY = 1e-3
BN_DECAY = 0.9  # resnet_arg_scope's 0.997 would barely move in a few steps


def _blocks(block):
    return [block("block1", base_depth=4, num_units=1, stride=2), block("block2", 8, 1, 1)]


def resnet(images, is_training, num_classes, use_batch_norm=True, **bn_params):
    """ResNet-v1 from tf-slim's bottleneck blocks, 4 and 8 wide."""
    scope = resnet_v1.resnet_arg_scope(weight_decay=WEIGHT_DECAY, batch_norm_decay=BN_DECAY)
    normalizer = {} if use_batch_norm else {"normalizer_fn": None}
    if bn_params:  # slim's own fused batch norm (resnet_arg_scope sets its own params)
        params = dict(decay=BN_DECAY, epsilon=1e-5, scale=True, **bn_params)
        normalizer = {"normalizer_params": params}
    with slim.arg_scope(scope), slim.arg_scope([slim.conv2d], **normalizer):
        net, end_points = resnet_v1.resnet_v1(
            images, _blocks(resnet_v1.resnet_v1_block), num_classes, is_training, scope="resnet"
        )
    assert "predictions" in end_points  # the net's own end_points dict came back
    return tf.squeeze(net, [1, 2], name="SpatialSqueeze")


def resnet_without_batch_norm(images, is_training, num_classes):
    """The same net with ``normalizer_fn=None``: biases instead of batch norm,
    so N towers x B and 1 tower x N*B see the same numbers."""
    return resnet(images, is_training, num_classes, use_batch_norm=False)


def resnet_in_place_updates(images, is_training, num_classes):
    """The same net with ``updates_collections=None`` (no UPDATE_OPS: tf-slim's
    fused batch norm assigns its moving averages as it runs)."""
    return resnet(images, is_training, num_classes, updates_collections=None)


def resnet_debiased(images, is_training, num_classes):
    """The same net with ``zero_debias_moving_mean=True`` (tf-slim's fused
    batch norm, TensorFlow's zero-debiased moving mean)."""
    return resnet(images, is_training, num_classes, zero_debias_moving_mean=True)


def resnet_v2_net(images, is_training, num_classes):
    """ResNet-v2 (pre-activation): a batch norm before the logits."""
    with slim.arg_scope(resnet_v2.resnet_arg_scope(weight_decay=WEIGHT_DECAY)):
        net, _ = resnet_v2.resnet_v2(
            images, _blocks(resnet_v2.resnet_v2_block), num_classes, is_training, scope="resnet"
        )
    return tf.squeeze(net, [1, 2])


def unsqueezed(images, is_training, num_classes):
    """tf-slim's resnet_v1 logits as they come: [batch, 1, 1, classes]."""
    with slim.arg_scope(resnet_v1.resnet_arg_scope()):
        net, _ = resnet_v1.resnet_v1(
            images, _blocks(resnet_v1.resnet_v1_block), num_classes, is_training
        )
    return net
