"""Layers built from ``tf.compat.v1.get_variable`` and ``tf.nn`` only.

``tf.compat.v1.layers`` raises under Keras 3 and Keras layers create
``tf.Variable``s that variable_scope reuse does not share across towers
(PORTING.md P1 and 3). These functions create every variable with
``get_variable``, so a second tower built under ``reuse=True`` shares them.

Initial values are stateless ops of (graph seed ``--seed``, the variable's
full name), not of the graph's op counter (tf1_train/initializers.py, shared
with the TF2 path): the same ``--seed`` gives the same initial weights however
many towers or input ops the graph has, and on both entry points.

Naming: kernels are ``.../weights`` (the only variables weight decay touches),
biases ``.../biases``, batch norm ``beta``, ``gamma`` (trainable) and
``moving_mean``, ``moving_variance`` (not trainable).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator, List, NamedTuple, Optional

import tensorflow as tf
from tensorflow.python.training import moving_averages  # what legacy batch norms call

from tf1_train import initializers

v1 = tf.compat.v1

WEIGHTS = "weights"
BIASES = "biases"

# Batch norm, with Torch's constants (nn.SpatialBatchNormalization, which the
# ResNet paper's CIFAR code used): decay 0.9 (momentum 0.1) and epsilon 1e-5.
# Decay 0.9 lets the moving statistics follow the weights within ~20 steps, so
# the short runs made here evaluate with statistics of the current model;
# 0.99 or the contrib layers' 0.999 would still remember the initial weights after
# hundreds of steps. Epsilon only guards the division; Keras' 1e-3 would
# visibly shrink channels with small variances.
BN_DECAY = 0.9
BN_EPSILON = 1e-5
MOVING_STATS = "tf1_train_moving_stats"  # graph collection of MovingStat


class MovingStat(NamedTuple):
    """A batch statistic that a moving-average variable should follow.

    Batch norm records these instead of updating its moving averages itself:
    towers.moving_average_updates applies one update per variable from the
    mean over towers (see there why).
    """

    variable: tf.Variable
    value: tf.Tensor
    decay: float
    debias: bool = False  # TensorFlow's zero_debias (tf-slim's zero_debias_moving_mean)


_RECORDING: List[tf.Graph] = []  # graphs whose towers are being built


@contextlib.contextmanager
def recording_moving_stats() -> Iterator[None]:
    """While the towers are built, legacy batch norms (tf1_train.compat's,
    which tf-slim's ``batch_norm`` uses after ``install()``, and those that
    call TensorFlow's ``assign_moving_average``) record their
    batch statistics as our own batch norm does, instead of each tower
    assigning the moving averages itself: N towers updating one shared
    variable (parameter_server) would apply the decay N times per step in no
    fixed order, and replicated copies would each follow their own tower."""
    _RECORDING.append(v1.get_default_graph())
    assign = moving_averages.assign_moving_average
    moving_averages.assign_moving_average = functools.partial(_record_or_assign, assign)
    try:
        yield
    finally:
        moving_averages.assign_moving_average = assign
        _RECORDING.pop()


def _record_or_assign(assign, variable, value, decay, zero_debias=True, name=None):
    """TensorFlow's ``assign_moving_average``, as batch norms written on it
    call it per tower (tf-slim's fused ``batch_norm`` with
    ``updates_collections=None`` or ``zero_debias_moving_mean``,
    tf_cnn_benchmarks' batch norm without layers): recorded like ours (the
    one update debiases as asked), unless the decay is a tensor or
    ``variable`` is not a variable (then assigned, as before)."""
    plain = isinstance(variable, tf.Variable) and isinstance(decay, (int, float))
    if not plain or not record_moving_stat(variable, value, decay, zero_debias):
        return assign(variable, value, decay, zero_debias, name)
    return tf.identity(variable, name=name or "RecordedMovingAvg")


def record_moving_stat(
    variable: tf.Variable, value: tf.Tensor, decay: float, debias: bool = False
) -> bool:
    """Records ``variable -> value`` in MOVING_STATS if the default graph's
    towers are being built (True); else False: the caller updates it itself."""
    if not _RECORDING or _RECORDING[-1] is not v1.get_default_graph():
        return False
    value = tf.cast(value, variable.dtype.base_dtype)
    v1.add_to_collection(MOVING_STATS, MovingStat(variable, value, float(decay), debias))
    return True


def variable(
    name: str,
    shape,
    initializer: Callable,
    trainable: bool = True,
) -> tf.Variable:
    """``get_variable`` whose initial value is ``initializer(shape, seed pair)``.

    Args:
      name: name inside the current variable scope.
      shape: the variable's shape.
      initializer: one of tf1_train/initializers.py's functions (shape, seed).
      trainable: whether it goes into TRAINABLE_VARIABLES.
    """
    scope = v1.get_variable_scope().name
    seed = initializers.seed_pair(f"{scope}/{name}" if scope else name)

    def initial(shape, dtype=None, partition_info=None):
        del dtype, partition_info
        return initializer(shape, seed)

    return v1.get_variable(
        name, shape=shape, dtype=tf.float32, initializer=initial, trainable=trainable
    )


glorot = initializers.glorot_uniform
he_normal = initializers.he_normal
zeros = initializers.zeros
ones = initializers.ones


def dense(
    x: tf.Tensor,
    units: int,
    name: str,
    activation: Optional[Callable] = None,
    kernel_init=glorot,
) -> tf.Tensor:
    """Fully connected layer: ``activation(x @ weights + biases)``."""
    with v1.variable_scope(name):
        w = variable(WEIGHTS, [int(x.shape[-1]), units], kernel_init)
        b = variable(BIASES, [units], zeros)
        y = tf.nn.bias_add(tf.matmul(x, w), b)
    return activation(y) if activation else y


def conv2d(
    x: tf.Tensor,
    filters: int,
    kernel: int,
    name: str,
    stride: int = 1,
    padding: str = "SAME",
    use_bias: bool = True,
    kernel_init=glorot,
) -> tf.Tensor:
    """2-D convolution over NHWC input; no activation."""
    with v1.variable_scope(name):
        shape = [kernel, kernel, int(x.shape[-1]), filters]
        w = variable(WEIGHTS, shape, kernel_init)
        y = tf.nn.conv2d(x, w, strides=[1, stride, stride, 1], padding=padding)
        if use_bias:
            y = tf.nn.bias_add(y, variable(BIASES, [filters], zeros))
    return y


def batch_norm(x: tf.Tensor, is_training: bool, name: str) -> tf.Tensor:
    """Batch normalisation over N, H, W (or N for 2-D input), our own.

    Keras 3's BatchNormalization adds nothing to UPDATE_OPS in a v1 graph, so
    its moving statistics never move (PORTING.md P2). The normalisation is the
    fused kernel (``fused_batch_norm``, as tf_cnn_benchmarks and the fused
    contrib layer used): on this CPU it runs a ResNet-20 training step 1.4x
    faster than ``tf.nn.moments`` + ``tf.nn.batch_normalization``, whose
    separate element-wise ops and their gradients took 40% of the step.
    Training normalises with the batch's mean and biased variance and records
    the batch mean and the kernel's Bessel-corrected variance (the fused
    layers' convention) in the MOVING_STATS collection, for the explicit
    update ops; evaluation normalises with the moving averages.
    """
    channels = int(x.shape[-1])
    with v1.variable_scope(name):
        beta = variable("beta", [channels], zeros)
        gamma = variable("gamma", [channels], ones)
        moving_mean = variable("moving_mean", [channels], zeros, trainable=False)
        moving_variance = variable("moving_variance", [channels], ones, trainable=False)
        flat = len(x.shape) == 2
        if flat:  # the kernel wants NHWC
            x = tf.reshape(x, [-1, 1, 1, channels])
        if is_training:
            y, mean, var = v1.nn.fused_batch_norm(x, gamma, beta, epsilon=BN_EPSILON)
            v1.add_to_collection(MOVING_STATS, MovingStat(moving_mean, mean, BN_DECAY))
            v1.add_to_collection(MOVING_STATS, MovingStat(moving_variance, var, BN_DECAY))
        else:
            y, _, _ = v1.nn.fused_batch_norm(
                x, gamma, beta, moving_mean, moving_variance, BN_EPSILON, is_training=False
            )
        return tf.reshape(y, [-1, channels]) if flat else y


def max_pool(x: tf.Tensor, size: int = 2, stride: int = 2) -> tf.Tensor:
    return tf.nn.max_pool2d(x, ksize=size, strides=stride, padding="SAME")


def flatten(x: tf.Tensor) -> tf.Tensor:
    return tf.reshape(x, [-1, int(x.shape[1:].num_elements())])
