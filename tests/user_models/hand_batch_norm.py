"""A user's batch norm written by hand on TensorFlow's ``assign_moving_average``
with its updates in UPDATE_OPS, as tf_cnn_benchmarks' ``use_tf_layers=False``
and many TF1 code bases wrote it: ``--model=tests.user_models.hand_batch_norm:build``."""

import tensorflow as tf
from tensorflow.python.training import moving_averages

v1 = tf.compat.v1
DECAY = 0.9


def _batch_norm(x, is_training, name):
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
            update = moving_averages.assign_moving_average(var, value, DECAY, zero_debias=False)
            v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, update)
        return y


def build(images, is_training, num_classes):
    """conv - batch norm - relu - global mean - dense."""
    kernel = v1.get_variable("conv1/weights", [3, 3, int(images.shape[-1]), 8])
    net = tf.nn.conv2d(images, kernel, 1, "SAME")
    net = tf.nn.relu(_batch_norm(net, is_training, "bn1"))
    net = tf.reduce_mean(net, [1, 2])
    weights = v1.get_variable("logits/weights", [8, num_classes])
    return tf.matmul(net, weights)
