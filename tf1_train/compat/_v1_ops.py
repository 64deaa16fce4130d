"""Ops TF 1.15 built and TensorFlow 2 skips, built again under ``--v1_seeds``.

A graph-seeded TF 1.x program seeded each unseeded random op with the number
of ops built before it (_v1_seeds.py), so an op TF 2 no longer builds moves
every later draw. Each function here is TF 1.15's, op for op, with the same
values: only the ops before and after the draw are restored. Where TF 1.15's
op would only move the count (an identity transpose, a dataset's default
options), one no-op stands in for each op TF 2 skipped. They replace
TensorFlow's own wherever its modules hold them (``random_ops.random_uniform``,
which its initializers call, and ``tf.random_uniform``) for the run's one
program; in eager code and ``tf.function``s they call TF 2's.
"""

import math
import sys
from typing import Callable


def install(v1_dropout: Callable) -> None:
    """Each function below in place of TensorFlow's, and ``v1_dropout`` in
    place of ``tf.compat.v1.nn.dropout`` (``nn_ops.dropout``)."""
    from tensorflow.python.ops import (
        array_ops,
        math_ops,
        nn_ops,
        parsing_ops,
        random_ops,
        tensor_array_ops,
    )

    from tf1_train.compat import _v1_ops_linalg, _v1_ops_parsing

    _replace(nn_ops.dropout, v1_dropout)

    _replace(random_ops.random_uniform, _random_uniform(random_ops.random_uniform))
    _replace(random_ops.random_gamma, _random_gamma(random_ops.random_gamma))
    _replace(array_ops.split, _split(array_ops.split))
    _replace(array_ops.one_hot, _one_hot(array_ops.one_hot))
    _replace(nn_ops.dropout_v2, _dropout_v2(nn_ops.dropout_v2))
    tensor_array_ops._GraphTensorArray.size = _tensor_array_size
    math_ops._ReductionDims = _reduction_dims(math_ops._ReductionDims)
    _replace(math_ops.tensordot, _tensordot(math_ops.tensordot))
    parse = parsing_ops.parse_single_sequence_example
    _replace(parse, _v1_ops_parsing.parse_single_sequence_example(parse))
    parse = parsing_ops.parse_single_example
    _replace(parse, _v1_ops_parsing.parse_single_example(parse))
    _v1_ops_linalg.install(_replace)
    _install_initializable_iterator()
    _install_private_keras_layers()


def _replace(original: Callable, replacement: Callable) -> None:
    """Every TensorFlow module attribute that is ``original`` becomes
    ``replacement`` (the private module TensorFlow's code calls through, and
    the public names it exports)."""
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("tensorflow"):
            continue
        for name in [n for n, v in list(vars(module).items()) if v is original]:
            setattr(module, name, replacement)


def _in_graph() -> bool:
    from tensorflow.python.framework import ops

    return not ops.executing_eagerly_outside_functions()


def _random_uniform(original: Callable) -> Callable:
    """TF 2 skips the ``min``/``max`` constants and the scaling for [0, 1)
    (and scales [0, max) by one multiply); TF 1.15 always built
    ``add(draw * (max - min), min)``, its two constants before the seed."""
    from tensorflow.python.framework import dtypes, ops, random_seed
    from tensorflow.python.ops import gen_random_ops, math_ops, shape_util

    def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
        dtype = dtypes.as_dtype(dtype)
        if not _in_graph() or dtype.is_integer or dtype not in _FLOATS:
            return original(shape, minval, maxval, dtype, seed, name)
        maxval = 1 if maxval is None else maxval
        with ops.name_scope(name, "random_uniform", [shape, minval, maxval]) as name:
            shape = shape_util.shape_tensor(shape)
            minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
            seed1, seed2 = random_seed.get_seed(seed)
            drawn = gen_random_ops.random_uniform(shape, dtype, seed=seed1, seed2=seed2)
            result = math_ops.add(drawn * (maxval - minval), minval, name=name)
            shape_util.maybe_set_static_shape(result, shape)
            return result

    return random_uniform


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _random_gamma(original: Callable) -> Callable:
    """TF 2 broadcasts ``alpha`` with four ops (two shapes, their broadcast
    and ``broadcast_to``); TF 1.15 added ``zeros_like(beta)``: two."""
    import numpy as np
    from tensorflow.python.framework import dtypes, ops, random_seed
    from tensorflow.python.ops import array_ops, gen_random_ops, math_ops, random_ops

    def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
        if not _in_graph():
            return original(shape, alpha, beta, dtype, seed, name)
        with ops.name_scope(name, "random_gamma", [shape, alpha, beta]):
            shape = ops.convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
            alpha = ops.convert_to_tensor(alpha, name="alpha", dtype=dtype)
            beta = ops.convert_to_tensor(1 if beta is None else beta, name="beta", dtype=dtype)
            alpha_broadcast = alpha + array_ops.zeros_like(beta)
            seed1, seed2 = random_seed.get_seed(seed)
            drawn = gen_random_ops.random_gamma(shape, alpha_broadcast, seed=seed1, seed2=seed2)
            tiny = np.finfo(alpha.dtype.as_numpy_dtype).tiny
            result = math_ops.maximum(tiny, drawn / beta)
            random_ops._maybe_set_static_shape_helper(result, shape, alpha_broadcast)
            return result

    return random_gamma


def _split(original: Callable) -> Callable:
    """``split(value, 4)``: TF 1.15 converted the 4 to a constant (in the
    caller's scope) before the ``Split``; TF 2 does not."""
    import numbers

    from tensorflow.python.framework import ops, tensor_shape

    def split(value, num_or_size_splits, axis=0, num=None, name="split"):
        if _in_graph() and isinstance(
            num_or_size_splits, (numbers.Integral, tensor_shape.Dimension)
        ):
            ops.convert_to_tensor(num_or_size_splits)
        return original(value, num_or_size_splits, axis=axis, num=num, name=name)

    return split


def _one_hot(original: Callable) -> Callable:
    """``one_hot(x, n, 1.0, 0.0)``: TF 1.15 converted each given value once
    to learn its dtype, then let the op convert it again (two constants
    more). With a ``dtype=`` or tensor values TF 2's own runs."""
    from tensorflow.python.framework import ops, tensor_util
    from tensorflow.python.ops import gen_array_ops

    def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
        values = [v for v in (on_value, off_value) if v is not None]
        if (
            not _in_graph()
            or dtype is not None
            or not values
            or any(map(tensor_util.is_tf_type, values))
        ):
            return original(indices, depth, on_value, off_value, axis, dtype, name)
        scope_values = [indices, depth, on_value, off_value, axis, dtype]
        with ops.name_scope(name, "one_hot", scope_values) as name:
            dtypes_of = {ops.convert_to_tensor(v).dtype.base_dtype for v in values}
            dtype = dtypes_of.pop()
            if dtypes_of:  # on and off of two types: TF 2's error
                return original(indices, depth, on_value, off_value, axis, None, name)
            if on_value is None:
                on_value = ops.convert_to_tensor(1, dtype, name="on_value")
            if off_value is None:
                off_value = ops.convert_to_tensor(0, dtype, name="off_value")
            return gen_array_ops.one_hot(indices, depth, on_value, off_value, axis, name=name)

    return one_hot


def _dropout_v2(original: Callable) -> Callable:
    """``nn.dropout(x, rate=...)``, which the legacy ``DropoutWrapper`` calls:
    TF 1.15's ops (_core.tf1_dropout) in a graph."""

    def dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
        if not _in_graph() or callable(rate):
            return original(x, rate, noise_shape=noise_shape, seed=seed, name=name)
        from tf1_train.compat._core import tf1_dropout

        return tf1_dropout(x, rate, noise_shape, seed, name)

    return dropout_v2


def _tensor_array_size(self, name=None):
    """A v1-graph TensorArray's ``size()``: TF 1.15 always built the
    ``TensorArraySizeV3`` op; TF 2 returns the size it was made with when
    that is fixed (the same number, without the op)."""
    from tensorflow.python.ops import gen_data_flow_ops

    return gen_data_flow_ops.tensor_array_size_v3(handle=self._handle, flow_in=self.flow, name=name)


def _reduction_dims(original: Callable) -> Callable:
    """A reduction over every axis of a scalar (``tf.losses``' mean of its
    summed loss): TF 1.15 gave the axes as one constant, TF 2.21 as
    ``range(0, rank(x))`` (four ops: it takes rank 0 for unknown)."""
    import numpy as np
    from tensorflow.python.framework import constant_op, dtypes

    def reduction_dims(x, axis):
        if axis is None and _in_graph() and getattr(x, "shape", None) is not None:
            if x.shape.rank == 0:
                return constant_op.constant(np.arange(0), dtype=dtypes.int32)
        return original(x, axis)

    return reduction_dims


def _install_private_keras_layers() -> None:
    """tf-slim's ``conv2d`` and ``flatten`` (``tf.contrib.layers``) build on
    TensorFlow's private Keras 2 layers, whose ops are TF 2's: a convolution
    without TF 1.15's unused ``dilation_rate`` constant, a flatten of known
    size without its dynamic batch size (_core.tf1_flatten)."""
    from tensorflow.python.framework import constant_op, dtypes
    from tensorflow.python.keras.layers import convolutional, core

    from tf1_train.compat._core import tf1_flatten

    conv_call, flatten_call = convolutional.Conv.call, core.Flatten.call

    def conv(self, inputs):
        if _in_graph() and all(d == 1 for d in self.dilation_rate):
            constant_op.constant(list(self.dilation_rate), dtypes.int32, name="dilation_rate")
        return conv_call(self, inputs)

    def flatten(self, inputs):
        if not _in_graph() or self._channels_first or (inputs.shape.rank or 1) == 1:
            return flatten_call(self, inputs)
        return tf1_flatten(inputs)

    convolutional.Conv.call, core.Flatten.call = conv, flatten
    _transposed_convolutions()


def _transposed_convolutions() -> None:
    """tf-slim's ``conv2d_transpose`` and ``conv3d_transpose``: TF 2's layer
    takes the output's height and width from the static shape, TF 1.15's
    computed them from the dynamic one (ten ops). tf1_train's own layers
    (tf.layers') build TF 1.15's ops and take tf-slim's arguments."""
    import tensorflow.python.layers.convolutional as private

    from tf1_train.compat import layers

    for rank in (2, 3):
        ours = getattr(layers, f"Conv{rank}DTranspose")
        for name in (f"Conv{rank}DTranspose", f"Convolution{rank}DTranspose"):
            setattr(private, name, ours)


def _stand_ins(count: int, what: str) -> None:
    """``count`` no-ops in place of the ops TF 1.15 built and TF 2 skips."""
    from tensorflow.python.ops import control_flow_ops

    for _ in range(count):
        control_flow_ops.no_op(name=f"tf1_{what}")


def _tensordot(original: Callable) -> Callable:
    """TF 1.15's ``tensordot`` always transposed and reshaped each operand of
    known shape, and reshaped the product; TF 2 skips an identity transpose
    and a reshape to the same shape, two ops each (``tf.layers.dense`` on a
    3-D input: its kernel's four, so the sampling after it drew other seeds)."""
    import numpy as np
    from tensorflow.python.framework.tensor_shape import TensorShape

    def static_shape(x) -> TensorShape:
        shape = getattr(x, "shape", None)
        return shape if isinstance(shape, TensorShape) else TensorShape(np.shape(x))

    def tensordot(a, b, axes, name=None):
        if not _in_graph():
            return original(a, b, axes, name)
        product = original(a, b, axes, name)
        _stand_ins(_tensordot_skips(static_shape(a), static_shape(b), axes), "tensordot")
        return product

    return tensordot


def _tensordot_skips(a_shape, b_shape, axes) -> int:
    """How many ops TF 2's ``tensordot`` of operands of these static shapes
    builds fewer than TF 1.15's: 2 per skipped transpose or reshape."""
    if isinstance(axes, int) and a_shape.rank is not None:
        axes = (list(range(a_shape.rank - axes, a_shape.rank)), list(range(axes)))
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        return 0
    a_axes, b_axes = ([x] if isinstance(x, int) else x for x in axes)
    if not all(isinstance(x, (list, tuple)) for x in (a_axes, b_axes)):
        return 0
    a_free, a_skips = _operand_skips(a_shape, a_axes, flipped=False)
    b_free, b_skips = _operand_skips(b_shape, b_axes, flipped=True)
    skips = a_skips + b_skips
    if a_free is not None and b_free is not None:  # the product reshaped to a_free + b_free
        skips += 2 * ([math.prod(a_free), math.prod(b_free)] == a_free + b_free)
    return skips


def _operand_skips(shape, axes, flipped: bool):
    """(free dims or None, ops skipped) for one operand of ``tensordot``."""
    if not shape.is_fully_defined():
        return None, 0
    dims = shape.as_list()
    axes = [i if i >= 0 else i + len(dims) for i in axes]
    free = [i for i in range(len(dims)) if i not in axes]
    perm = axes + free if flipped else free + axes
    sizes = [math.prod(dims[i] for i in axes), math.prod(dims[i] for i in free)]
    skips = 2 * (perm == list(range(len(dims))))
    skips += 2 * ([dims[i] for i in perm] == (sizes if flipped else sizes[::-1]))
    return [dims[i] for i in free], skips


def _install_initializable_iterator() -> None:
    """TF 1.15's ``make_initializable_iterator`` applied the dataset's
    default options in the graph first: an ``optimizations`` constant and an
    ``OptimizeDataset`` (unless default optimizations are off) and a
    ``ModelDataset`` (unless autotuning is); TF 2 applies them in the
    runtime. A graph-seeded draw after the iterator (word2vec's NCE sampler)
    took another seed."""
    from tensorflow.python.data.ops import dataset_ops

    original = dataset_ops.DatasetV1._make_initializable_iterator

    def _make_initializable_iterator(self, shared_name=None):
        if _in_graph():
            options = self.options()
            optimized = options.experimental_optimization.apply_default_optimizations
            _stand_ins(2 * (optimized is not False) + (options.autotune.enabled is not False),
                       "dataset_options")  # fmt: skip
        return original(self, shared_name)

    dataset_ops.DatasetV1._make_initializable_iterator = _make_initializable_iterator
