"""--moving_average_decay: exponential moving averages of the weights.

What the CIFAR-10 tutorial and tf_cnn_benchmarks do:
``tf.compat.v1.train.ExponentialMovingAverage(decay, num_updates=global_step)``
over the trainable variables, applied after each update, so step n (the
global step after its update) uses ``min(decay, (1 + n) / (10 + n))``. Each
average is a variable named ``<var>/ExponentialMovingAverage`` next to its
variable, saved with the checkpoint under that TF1 name, and the test-set
evaluation reads the averages in place of the weights, as restoring with
``variables_to_restore()`` into an eval graph does.

Only the variables a checkpoint holds are averaged: in replicated mode, tower
0's copies (their averages are saved without ``v0/``, like the copies).
"""

from __future__ import annotations

from typing import Callable, List, Optional

import tensorflow as tf

v1 = tf.compat.v1

SUFFIX = "ExponentialMovingAverage"  # v1's default name, part of every average's name


def make(decay: float, global_step: tf.Variable) -> Optional[v1.train.ExponentialMovingAverage]:
    """The averager, or None when ``decay`` is 0 (off)."""
    if decay <= 0:
        return None
    return v1.train.ExponentialMovingAverage(decay, num_updates=global_step)


def averaged(grads_and_vars, mode) -> List[tf.Variable]:
    """The trained variables that are saved (each once), in a fixed order."""
    found = {}
    for _, var in grads_and_vars:
        if mode.checkpoint_name(var.op.name) is not None:
            found.setdefault(var.op.name, var)
    return [found[name] for name in sorted(found)]


def apply_after(
    ema: v1.train.ExponentialMovingAverage, update: tf.Operation, variables: List[tf.Variable]
) -> tf.Operation:
    """``update``, then the averages' step (reading the updated weights and
    global step): the train op."""
    with tf.control_dependencies([update]):
        averages_op = ema.apply(variables)
    return tf.group(update, averages_op, name="train_op")


def reading_averages(ema: Optional[v1.train.ExponentialMovingAverage]) -> Optional[Callable]:
    """A custom getter for the eval replica's variable scope: a variable
    that has an average is read through it (None when averaging is off)."""
    if ema is None:
        return None

    def reader(getter, *args, **kwargs):
        var = getter(*args, **kwargs)
        average = ema.average(var)
        return var if average is None else average

    return reader
