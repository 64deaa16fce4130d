"""TF2 layers that mirror tf1_train/models/layers.py op for op.

Each layer registers its variables in a shared ``Params`` store under the TF1
name (``fc1/weights``), so a model's variables can be matched to a TF1
checkpoint without any name mapping table.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import tensorflow as tf

from tf1_train import initializers

glorot_uniform = initializers.glorot_uniform
he_normal = initializers.he_normal
zeros = initializers.zeros
ones = initializers.ones


def graph_code(fn: Callable) -> Callable:
    """Marks a twin's function as graph code that AutoGraph leaves alone.

    The twins of TF1's recurrent and seq2seq code are written as TF1's was:
    ``tf.while_loop``, ``tf.cond``, Python loops over static lengths. Inside
    a user's ``tf.function`` AutoGraph would convert every function they
    call, again, for nothing but time: tracing an NMT model's beam search
    took 6.3 s with the conversion and 1.3 s without, the same graph. A
    callable the user passes in (an embedding function, a
    ``probability_fn``) then runs as written, as in TF1: its control flow is
    ``tf.cond``/``tf.while_loop``, not Python's ``if`` on a tensor.
    """
    return tf.autograph.experimental.do_not_convert(fn)


def read(var: tf.Variable, x: tf.Tensor) -> tf.Tensor:
    """A weight in the type of the input it meets: float32 variables serve a
    bfloat16 or float16 replica through a cast (the TF1 towers' custom
    getter); with float32 input, the variable itself."""
    return tf.cast(var, x.dtype) if x.dtype != var.dtype else var


class Params(tf.Module):
    """Every variable of a model, by its TF1 checkpoint name, in creation order."""

    def __init__(self):
        super().__init__(name="params")
        self.by_name: Dict[str, tf.Variable] = {}
        # moving statistic's name -> (decay, epsilon) of its batch norm: the
        # step's update and port check's hints read them (BatchNorm below)
        self.batch_norm: Dict[str, Tuple[float, float]] = {}

    def create(self, name: str, shape, init: Callable, trainable: bool = True) -> tf.Variable:
        initial = init(list(shape), initializers.seed_pair(name))
        var = tf.Variable(initial, name=name, trainable=trainable)
        self.by_name[name] = var
        return var


class Dense:
    """``activation(x @ weights + biases)``."""

    def __init__(
        self,
        params: Params,
        name: str,
        in_dim: int,
        units: int,
        activation=None,
        kernel_init: Callable = glorot_uniform,
    ):
        self.w = params.create(f"{name}/weights", [in_dim, units], kernel_init)
        self.b = params.create(f"{name}/biases", [units], zeros)
        self.activation = activation

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        y = tf.nn.bias_add(tf.matmul(x, read(self.w, x)), read(self.b, x))
        return self.activation(y) if self.activation else y


class Conv2D:
    """2-D convolution over NHWC input; no activation."""

    def __init__(
        self,
        params: Params,
        name: str,
        in_channels: int,
        filters: int,
        kernel: int,
        stride: int = 1,
        use_bias: bool = True,
        kernel_init: Callable = glorot_uniform,
    ):
        shape = [kernel, kernel, in_channels, filters]
        self.w = params.create(f"{name}/weights", shape, kernel_init)
        self.b: Optional[tf.Variable] = None
        if use_bias:
            self.b = params.create(f"{name}/biases", [filters], zeros)
        self.stride = stride

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        s = self.stride
        y = tf.nn.conv2d(x, read(self.w, x), strides=[1, s, s, 1], padding="SAME")
        return tf.nn.bias_add(y, read(self.b, x)) if self.b is not None else y


BN_DECAY = 0.9  # as tf1_train.models.layers
BN_EPSILON = 1e-5


class BatchNorm:
    """Our batch norm, as in the TF1 graph: the fused kernel (TF2 has no
    public wrapper for it, so ``tf.raw_ops``), batch statistics in training,
    recorded in ``stats`` (moving variable name -> batch mean, and the
    kernel's Bessel-corrected variance) for the step to average over replicas
    and apply once; moving statistics in eval. Input is NHWC (or 2-D)."""

    def __init__(
        self,
        params: Params,
        name: str,
        channels: int,
        decay: float = BN_DECAY,
        epsilon: float = BN_EPSILON,
    ):
        """``decay`` and ``epsilon`` as the TF1 model's batch norm has them
        (tf-slim's 0.999 and 0.001 by default; TF 1.x's fused kernel raised an
        epsilon below 1.001e-5 to that)."""
        self.beta = params.create(f"{name}/beta", [channels], zeros)
        self.gamma = params.create(f"{name}/gamma", [channels], ones)
        self.moving_mean = params.create(f"{name}/moving_mean", [channels], zeros, False)
        self.moving_variance = params.create(f"{name}/moving_variance", [channels], ones, False)
        self.stat_names = (f"{name}/moving_mean", f"{name}/moving_variance")
        for stat in self.stat_names:
            params.batch_norm[stat] = (float(decay), float(epsilon))
        self.channels, self.epsilon = channels, float(epsilon)

    def __call__(self, x: tf.Tensor, training: bool, stats: Optional[Dict]) -> tf.Tensor:
        flat = len(x.shape) == 2
        if flat:
            x = tf.reshape(x, [-1, 1, 1, self.channels])
        if training:
            empty = tf.constant([], tf.float32)  # what the v1 wrapper passes
            mean_in, var_in = empty, empty
        else:
            mean_in, var_in = self.moving_mean, self.moving_variance
        y, mean, var, _, _, _ = tf.raw_ops.FusedBatchNormV3(
            x=x,
            scale=self.gamma,
            offset=self.beta,
            mean=mean_in,
            variance=var_in,
            epsilon=self.epsilon,
            exponential_avg_factor=1.0,
            data_format="NHWC",
            is_training=training,
        )
        if training and stats is not None:
            stats[self.stat_names[0]] = mean
            stats[self.stat_names[1]] = var
        return tf.reshape(y, [-1, self.channels]) if flat else y


def max_pool(x: tf.Tensor, size: int = 2, stride: int = 2) -> tf.Tensor:
    return tf.nn.max_pool2d(x, ksize=size, strides=stride, padding="SAME")


def flatten(x: tf.Tensor) -> tf.Tensor:
    x = tf.convert_to_tensor(x)
    return tf.reshape(x, [-1, int(x.shape[1:].num_elements())])
