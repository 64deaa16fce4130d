"""Batch renormalization (Ioffe 2017) as the v1 batch-norm layer computed it.

In training, the batch-normalized values are corrected by ``r`` and ``d``,
computed from the batch's moments and averages kept in ``renorm_mean`` and
``renorm_stddev`` (decay ``renorm_momentum``), clipped by
``renorm_clipping``, and kept out of the gradient. The inference statistics
follow ``moving_mean`` and ``moving_stddev`` (decay ``momentum``);
``moving_variance`` is assigned ``relu(moving_stddev ** 2 - epsilon)`` after
each update, so a checkpoint holds all five as TF 1.15 and tf_keras write
them. These are functions of the layer (compat/_batchnorm.py), not a second
layer class.
"""

import tensorflow as tf

from tf1_train.compat._base import STATISTIC, get_initializer, smart_cond

v1 = tf.compat.v1


def build(layer, shape, mean_init, variance_init) -> None:
    """The three variables, after ``moving_variance``, in the legacy order;
    the standard deviations start at sqrt(the variance initializer)."""
    variance_init = get_initializer(variance_init)

    def stddev_init(*args, **kwargs):
        return tf.sqrt(variance_init(*args, **kwargs))

    dtype = layer._param_dtype
    with v1.colocate_with(layer.moving_variance):
        layer.moving_stddev = layer.add_weight(
            "moving_stddev", shape, stddev_init, dtype=dtype, **STATISTIC
        )
    with v1.colocate_with(layer.moving_mean):
        layer.renorm_mean = layer.add_weight(
            "renorm_mean", shape, mean_init, dtype=dtype, **STATISTIC
        )
    with v1.colocate_with(layer.moving_stddev):
        layer.renorm_stddev = layer.add_weight(
            "renorm_stddev", shape, stddev_init, dtype=dtype, **STATISTIC
        )


def correction(layer, mean, variance, training):
    """(r, d) from the pre-update renorm averages, clipped (1 and 0 when not
    training); the mean and variance returned wait for those averages'
    updates, so the moving averages' updates that read them run after."""
    stddev = tf.sqrt(variance + layer.epsilon)
    renorm_stddev = tf.maximum(layer.renorm_stddev, tf.sqrt(layer.epsilon))
    r = stddev / renorm_stddev
    d = (mean - layer.renorm_mean) / renorm_stddev
    with tf.control_dependencies([r, d]):  # the corrections read the old values
        mean = tf.identity(mean)
        stddev = tf.identity(stddev)
    clip = layer.renorm_clipping
    if clip.get("rmin") is not None:
        r = tf.maximum(r, clip["rmin"])
    if clip.get("rmax") is not None:
        r = tf.minimum(r, clip["rmax"])
    if clip.get("dmax") is not None:
        d = tf.minimum(tf.maximum(d, -clip["dmax"]), clip["dmax"])
    r = smart_cond(training, lambda: r, lambda: tf.ones_like(r))
    d = smart_cond(training, lambda: d, lambda: tf.zeros_like(d))

    def update(variable, value):
        value = tf.identity(value)
        return smart_cond(
            training,
            lambda: layer._assign_moving_average(variable, value, layer.renorm_momentum),
            lambda: tf.identity(variable),
        )

    updated = [update(layer.renorm_mean, mean), update(layer.renorm_stddev, stddev)]
    with tf.control_dependencies(updated):
        return r, d, tf.identity(mean), tf.identity(variance)


def variance_update(layer, new_variance):
    """The moving stddev follows sqrt(variance + epsilon); the moving
    variance is derived from it (relu: rounding can make it negative)."""
    stddev = layer._assign_moving_average(
        layer.moving_stddev, tf.sqrt(new_variance + layer.epsilon), layer.momentum
    )
    with tf.name_scope("AssignNewValue") as scope:
        with v1.colocate_with(layer.moving_variance):
            value = tf.nn.relu(stddev * stddev - layer.epsilon)
            return v1.assign(layer.moving_variance, value, name=scope)


def compose(scale, offset, then_scale, then_offset):
    """(x * scale + offset) * then_scale + then_offset as one scale and offset."""
    if then_scale is not None:
        scale *= then_scale
        offset *= then_scale
    if then_offset is not None:
        offset += then_offset
    return scale, offset
