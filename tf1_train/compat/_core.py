"""Dense, dropout and flatten with the legacy signatures and defaults."""

import functools
import operator
from typing import Callable, Optional

import tensorflow as tf

from tf1_train.compat._base import (
    ZEROS,
    Layer,
    check_data_format,
    get_activation,
    smart_cond,
)

v1 = tf.compat.v1


class Dense(Layer):
    """``kernel`` [in, units] and ``bias`` [units]; matmul for rank 2, tensordot above."""

    base_name = "dense"

    def __init__(
        self,
        units: int,
        activation=None,
        use_bias: bool = True,
        kernel_initializer=None,
        bias_initializer=ZEROS,
        kernel_regularizer: Optional[Callable] = None,
        bias_regularizer: Optional[Callable] = None,
        activity_regularizer: Optional[Callable] = None,
        kernel_constraint: Optional[Callable] = None,
        bias_constraint: Optional[Callable] = None,
        trainable: bool = True,
        name: Optional[str] = None,
        **kwargs,
    ):
        super().__init__(trainable, name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def build(self, input_shape: tf.TensorShape) -> None:
        input_shape = tf.TensorShape(input_shape)  # a list, from a wrapper's build
        last = tf.compat.dimension_value(input_shape[-1]) if input_shape.rank else None
        if last is None or input_shape.rank < 2:
            raise ValueError(
                f"dense needs inputs of rank >= 2 with a known last dimension, got {input_shape}"
            )
        self.kernel = self.add_weight(
            "kernel",
            [last, self.units],
            self.kernel_initializer,
            self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                [self.units],
                self.bias_initializer,
                self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def compute_output_shape(self, input_shape) -> tf.TensorShape:
        """``input_shape`` with its last axis ``units`` (the seq2seq decoders
        size their outputs by it)."""
        input_shape = tf.TensorShape(input_shape)
        if input_shape.rank is None or tf.compat.dimension_value(input_shape[-1]) is None:
            raise ValueError(
                f"The innermost dimension of input_shape must be defined, but saw: {input_shape}"
            )
        return input_shape[:-1].concatenate(self.units)

    def call(self, inputs):
        if inputs.dtype.base_dtype != self.dtype:
            inputs = tf.cast(inputs, self.dtype)
        rank = inputs.shape.rank
        if rank == 2 or rank is None:
            outputs = tf.matmul(a=inputs, b=self.kernel)
        else:
            outputs = tf.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape[:-1].concatenate([self.units]))
        if self.use_bias:
            outputs = tf.nn.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs


def dense(
    inputs,
    units: int,
    activation=None,
    use_bias: bool = True,
    kernel_initializer=None,
    bias_initializer=ZEROS,
    kernel_regularizer: Optional[Callable] = None,
    bias_regularizer: Optional[Callable] = None,
    activity_regularizer: Optional[Callable] = None,
    kernel_constraint: Optional[Callable] = None,
    bias_constraint: Optional[Callable] = None,
    trainable: bool = True,
    name: Optional[str] = None,
    reuse=None,
):
    """``tf.compat.v1.layers.dense``."""
    layer = Dense(
        units,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _scope=name,
        _reuse=reuse,
    )
    return layer(inputs)


class Dropout(Layer):
    """Identity unless ``training`` is true (the legacy default is False)."""

    base_name = "dropout"

    def __init__(self, rate=0.5, noise_shape=None, seed: Optional[int] = None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dynamic = tf.shape(inputs)
        shape = [dynamic[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        return tf.convert_to_tensor(shape)

    def call(self, inputs, training=False):
        # rate 0: TF 1.15's smart_cond still chose; training gave nn.dropout's
        # input back (no op), not training an identity (tf1_dropout returns x)
        if training is None:
            training = False

        def dropped():
            # The same op seed at every call, as TF 1.x's layer gave: one
            # seeded layer called twice drops the same units (tf_keras's differ)
            return tf1_dropout(inputs, self.rate, self._noise_shape(inputs), self.seed)

        return smart_cond(training, dropped, lambda: tf.identity(inputs))


def _tf1_random_uniform(shape, seed, dtype):
    """TF 1.15's ``random_uniform`` over [0, 1), op for op (TF 2's skips the
    scaling ops for that range): the shape made a tensor first (a given
    ``noise_shape``'s constant, ``random_uniform/shape``), then the two
    constants, then the seed. Without the shape's constant before the seed a
    dropout of a Python-list ``noise_shape`` drew with an op seed one lower
    than TF 1.15.5 (GPT-1's classifier dropout)."""
    from tensorflow.python.framework import random_seed
    from tensorflow.python.ops import gen_random_ops, shape_util

    with tf.name_scope("random_uniform"):
        shape = shape_util.shape_tensor(shape)
        low = tf.convert_to_tensor(0, dtype=dtype, name="min")
        high = tf.convert_to_tensor(1, dtype=dtype, name="max")
        seed1, seed2 = random_seed.get_seed(seed)
        drawn = gen_random_ops.random_uniform(shape, dtype, seed=seed1, seed2=seed2)
        return tf.add(drawn * (high - low), low)


def tf1_dropout(x, rate, noise_shape, seed, name=None):
    """TF 1.15's ``nn.dropout``, op for op: ``x * (1 / (1 - rate))`` times the
    mask ``uniform >= rate``. TF 2's builds other ops in another order, and a
    graph-seeded program's op seeds count them (--v1_seeds): its uniform draw
    and every later unseeded one would differ from TF 1.x's."""
    from tensorflow.python.ops import nn_ops

    if isinstance(rate, (int, float)) and rate == 0:
        return x
    with tf.name_scope(name or "dropout"):
        x = tf.convert_to_tensor(x, name="x")
        rate = tf.convert_to_tensor(rate, dtype=x.dtype, name="rate")
        if tf.get_static_value(rate) == 0:
            return x
        # TF 1.15's _get_noise_shape: tf.shape(x), or the given shape with its None
        # dimensions taken from x's static shape ([None, 1, n] raised here before)
        shape = nn_ops._get_noise_shape(x, noise_shape)
        random_tensor = _tf1_random_uniform(shape, seed, x.dtype)
        scale = 1 / (1 - rate)
        keep_mask = random_tensor >= rate
        ret = x * scale * tf.cast(keep_mask, x.dtype)
        ret.set_shape(x.shape)
        return ret


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``tf.compat.v1.layers.dropout``: identity unless ``training``."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer(inputs, training=training)


class Flatten(Layer):
    """[batch, ...] -> [batch, prod(...)], channels_first inputs first moved to channels_last."""

    base_name = "flatten"

    def __init__(self, data_format: str = "channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.data_format = check_data_format(data_format)

    def call(self, inputs):
        rank = inputs.shape.rank
        if self.data_format == "channels_first" and rank and rank > 1:
            inputs = tf.transpose(inputs, perm=[0, *range(2, rank), 1])
        return tf1_flatten(inputs)


def tf1_flatten(inputs):
    """A channels-last [batch, ...] -> [batch, prod(...)] with TF 1.x's ops,
    one for one (the batch size read from the shape, packed with -1): a
    graph-seeded program's later op seeds count them (--v1_seeds)."""
    batch = tf.compat.dimension_value(inputs.shape[0]) or tf.shape(inputs)[0]
    outputs = tf.reshape(inputs, (batch, -1))
    rest = inputs.shape[1:]
    size = (
        int(functools.reduce(operator.mul, rest.as_list(), 1)) if rest.is_fully_defined() else None
    )
    outputs.set_shape([inputs.shape[0], size])
    return outputs


def flatten(inputs, name=None, data_format: str = "channels_last"):
    """``tf.compat.v1.layers.flatten``."""
    return Flatten(name=name, data_format=data_format)(inputs)
