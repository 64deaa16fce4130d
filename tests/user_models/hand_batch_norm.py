"""A user's batch norm written by hand, with its updates in UPDATE_OPS, in the
ways TF1 code bases wrote them:

- ``build``: on TensorFlow's ``assign_moving_average`` (tf_cnn_benchmarks'
  ``use_tf_layers=False``): ``--model=tests.user_models.hand_batch_norm:build``;
- ``build_assign``: ``tf.assign(pop_mean, pop_mean * decay + batch_mean * (1 -
  decay))``, and ``build_tensor_decay``: ``assign_moving_average`` with the
  decay as a tensor; neither can be averaged over towers.
"""

import tensorflow as tf
from tensorflow.python.training import moving_averages

v1 = tf.compat.v1
DECAY = 0.9


def _moving_average(var, value):
    return moving_averages.assign_moving_average(var, value, DECAY, zero_debias=False)


def _assign(var, value):
    return v1.assign(var, var * DECAY + value * (1 - DECAY))


def _tensor_decay(var, value):
    decay = tf.constant(DECAY, name="decay")
    return moving_averages.assign_moving_average(var, value, decay, zero_debias=False)


def _batch_norm(x, is_training, name, update):
    channels = int(x.shape[-1])
    with v1.variable_scope(name):
        beta = v1.get_variable("beta", [channels], initializer=v1.zeros_initializer())
        gamma = v1.get_variable("gamma", [channels], initializer=v1.ones_initializer())
        mean_var = v1.get_variable(
            "moving_mean", [channels], initializer=v1.zeros_initializer(), trainable=False
        )
        var_var = v1.get_variable(
            "moving_variance", [channels], initializer=v1.ones_initializer(), trainable=False
        )
        if not is_training:
            y, _, _ = v1.nn.fused_batch_norm(x, gamma, beta, mean_var, var_var, is_training=False)
            return y
        y, mean, variance = v1.nn.fused_batch_norm(x, gamma, beta)
        for var, value in ((mean_var, mean), (var_var, variance)):
            v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, update(var, value))
        return y


def _net(images, is_training, num_classes, update):
    """conv - batch norm - relu - global mean - dense."""
    kernel = v1.get_variable("conv1/weights", [3, 3, int(images.shape[-1]), 8])
    net = tf.nn.conv2d(images, kernel, 1, "SAME")
    net = tf.nn.relu(_batch_norm(net, is_training, "bn1", update))
    net = tf.reduce_mean(net, [1, 2])
    weights = v1.get_variable("logits/weights", [8, num_classes])
    return tf.matmul(net, weights)


def build(images, is_training, num_classes):
    return _net(images, is_training, num_classes, _moving_average)


def build_assign(images, is_training, num_classes):
    return _net(images, is_training, num_classes, _assign)


def build_tensor_decay(images, is_training, num_classes):
    return _net(images, is_training, num_classes, _tensor_decay)
