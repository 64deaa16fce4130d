"""Initial weights as one function of (``--seed``, variable name), for both paths.

The TF1 graph (tf1_train/models/layers.py, through ``get_variable``'s callable
initializer) and the TF2 modules (tf1_train/tf2/layers.py) call these same
stateless ops with the same seed pair ``[run seed, name_seed(name)]``: the
same ``--seed`` gives the same initial weights on ``python -m tf1_train.main``
and ``python -m tf1_train.tf2.main``, whatever the number of towers or the op
order of the graph. (Before, TF1 drew them from stateful v1 initializers
seeded by graph seed and op seed, TF2 from stateless ops seeded by name only.)
"""

from __future__ import annotations

import math
from typing import List, Sequence

import tensorflow as tf

from tf1_train.naming import name_seed

# Truncated normal at 2 stddevs has stddev 0.8796 of the untruncated one: the
# v1 variance-scaling initializer divides by it, so do we.
TRUNCATED_STDDEV = 0.87962566103423978


def run_seed() -> int:
    """The seed ``tf.random.set_seed`` / ``set_random_seed`` set (0 if none).

    Read without drawing an op seed, so a model's own stateful ops (dropout,
    its initializers) see the op seeds they would have seen anyway.
    """
    if tf.executing_eagerly():
        from tensorflow.python.eager import context

        seed = context.global_seed()
    else:
        seed = tf.compat.v1.get_default_graph().seed
    return 0 if seed is None else int(seed)


def seed_pair(name: str) -> List[int]:
    """``[run seed, name seed]``: the stateless seed of variable ``name``."""
    return [run_seed() % (2**31 - 1), name_seed(name)]


def glorot_uniform(shape: Sequence[int], seed) -> tf.Tensor:
    fan_in, fan_out = _fans(shape)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return tf.random.stateless_uniform(list(shape), seed, -limit, limit)


def he_normal(shape: Sequence[int], seed) -> tf.Tensor:
    fan_in, _ = _fans(shape)
    stddev = math.sqrt(2.0 / fan_in) / TRUNCATED_STDDEV
    return tf.random.stateless_truncated_normal(list(shape), seed, stddev=stddev)


def zeros(shape: Sequence[int], seed) -> tf.Tensor:
    del seed
    return tf.zeros(list(shape))


def ones(shape: Sequence[int], seed) -> tf.Tensor:
    del seed
    return tf.ones(list(shape))


def _fans(shape):
    shape = list(shape)
    if len(shape) < 2:  # a vector (TF1's get_variable gave a bias Glorot): TensorFlow's rule
        return (shape[0], shape[0]) if shape else (1, 1)
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive
