"""A user's TF1 model that computes in float16 by itself, as GPU code bases
of the TF1 era wrote it: the model function opens its own variable scope
with a custom getter that stores each variable in float32 and hands the
layers a float16 cast, and casts its input to float16. Written here from the
idea (official ResNet's ``_custom_dtype_getter``, NVIDIA's ConvNets
``model_variable_scope``, tf_cnn_benchmarks' ``--use_fp16`` getter); from
tf1_train only the drop-in for ``tf.layers`` a porter takes. Their loss scale lived in the training
script, not in the model function, so none is here.

- ``build``: each ``get_variable`` asks for float16; float16 logits
  (official ResNet's model, whose run loop cast them);
- ``build_float32_logits``: the same, logits cast back to float32 inside
  (tf_cnn_benchmarks' model did the cast itself);
- ``build_scope_dtype``: the scope's ``dtype=float16`` does the asking
  (NVIDIA's ``variable_scope(name, dtype=..., custom_getter=...)``);
- ``build_layers``: official ResNet's layers (``tf.layers``' conv2d, batch
  norm, dense) under the getter, from ``tf1_train.compat.layers``;
- ``build_plain``: the same model without its getter and casts.

Batch norm is written by hand on the fused kernel, its scale and offset
asked for in float32 as ``tf.layers``' batch norm does for a float16 input.
"""

import tensorflow as tf
from tensorflow.python.training import moving_averages

from tf1_train.compat import layers

v1 = tf.compat.v1
HALF = tf.float16
SCOPE = "self_cast"
CHANNELS = 8
DECAY = 0.9


def float32_storage(getter, name, shape=None, dtype=None, *args, **kwargs):
    """float16 asked for: a float32 variable, handed out as a float16 cast."""
    if dtype == HALF:
        var = getter(name, shape, tf.float32, *args, **kwargs)
        return tf.cast(var, HALF, name=name.split("/")[-1] + "_cast")
    return getter(name, shape, dtype, *args, **kwargs)


def _batch_norm(x, is_training):
    zeros, ones = v1.zeros_initializer(), v1.ones_initializer()
    with v1.variable_scope("bn"):
        beta = v1.get_variable("beta", [CHANNELS], tf.float32, zeros)
        gamma = v1.get_variable("gamma", [CHANNELS], tf.float32, ones)
        mean = v1.get_variable("moving_mean", [CHANNELS], tf.float32, zeros, trainable=False)
        var = v1.get_variable("moving_variance", [CHANNELS], tf.float32, ones, trainable=False)
    if not is_training:
        return v1.nn.fused_batch_norm(x, gamma, beta, mean, var, is_training=False)[0]
    y, batch_mean, batch_var = v1.nn.fused_batch_norm(x, gamma, beta)
    for moving, value in ((mean, batch_mean), (var, batch_var)):
        update = moving_averages.assign_moving_average(moving, value, DECAY, zero_debias=False)
        v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, update)
    return y


def _net(x, is_training, num_classes, dtype):
    """conv - batch norm - relu - global mean - dense; weights asked for in ``dtype``."""
    kernel = v1.get_variable("conv1/weights", [3, 3, int(x.shape[-1]), CHANNELS], dtype)
    x = tf.nn.relu(_batch_norm(tf.nn.conv2d(x, kernel, 1, "SAME"), is_training))
    x = tf.reduce_mean(x, [1, 2])
    weights = v1.get_variable("logits/weights", [CHANNELS, num_classes], dtype)
    bias = v1.get_variable("logits/biases", [num_classes], dtype, v1.zeros_initializer())
    return tf.matmul(x, weights) + bias


def build(images, is_training, num_classes):
    with v1.variable_scope(SCOPE, custom_getter=float32_storage):
        return _net(tf.cast(images, HALF), is_training, num_classes, HALF)


def build_float32_logits(images, is_training, num_classes):
    return tf.cast(build(images, is_training, num_classes), tf.float32)


def build_scope_dtype(images, is_training, num_classes):
    with v1.variable_scope(SCOPE, dtype=HALF, custom_getter=float32_storage):
        return _net(tf.cast(images, HALF), is_training, num_classes, None)


def build_layers(images, is_training, num_classes):
    """The layers infer float16 from their input and ask for float16 kernels."""
    with v1.variable_scope(SCOPE, custom_getter=float32_storage):
        x = layers.conv2d(tf.cast(images, HALF), CHANNELS, 3, padding="same", use_bias=False)
        x = tf.nn.relu(layers.batch_normalization(x, training=is_training))
        return layers.dense(tf.reduce_mean(x, [1, 2]), num_classes)


def build_plain(images, is_training, num_classes):
    """The same model without its own casts: float32 unless --precision says otherwise."""
    with v1.variable_scope(SCOPE):
        return _net(images, is_training, num_classes, tf.float32)
