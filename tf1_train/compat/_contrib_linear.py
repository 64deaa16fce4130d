"""``tensorflow.contrib.rnn.python.ops.core_rnn_cell``'s ``_Linear`` and
``_linear``, as TF 1.15 defined them.

TF 1.x cells of one's own called them for their projections (OpenSeq2Seq's
group and factorised LSTMs, ``glstm.py`` / ``flstm.py``: ``core_rnn_cell.
_Linear([inputs, m_prev], 4 * units, bias=False)``); TensorFlow 2 keeps no
copy. Both make ``kernel`` [sum of the args' depths, output_size] and, with
a bias, ``bias`` [output_size] (zeros unless given, never partitioned) in
the current variable scope through ``get_variable``, so a cell's variables
share by reuse and TF1 checkpoints restore; ``_Linear`` makes them once,
when constructed, and applies them to the arguments of each call.
"""

from __future__ import annotations

import tensorflow as tf

v1 = tf.compat.v1
_WEIGHTS_VARIABLE_NAME = "kernel"
_BIAS_VARIABLE_NAME = "bias"


def _arguments(args):
    """(the list of 2-D args, whether a sequence was given, their summed depth)."""
    if args is None or (tf.nest.is_nested(args) and not args):
        raise ValueError("`args` must be specified")
    given_sequence = tf.nest.is_nested(args)
    args = list(args) if given_sequence else [args]
    shapes = [a.get_shape() for a in args]
    depth = 0
    for shape in shapes:
        if shape.ndims != 2:
            raise ValueError(f"linear is expecting 2D arguments: {shapes}")
        if tf.compat.dimension_value(shape[1]) is None:
            raise ValueError(
                f"linear expects shape[1] to be provided for shape {shape}, but saw {shape[1]}"
            )
        depth += tf.compat.dimension_value(shape[1])
    return args, given_sequence, depth


def _kernel(depth, output_size, dtype, initializer):
    return v1.get_variable(_WEIGHTS_VARIABLE_NAME, [depth, output_size], dtype=dtype,
                           initializer=initializer)  # fmt: skip


def _bias(outer_scope, output_size, dtype, initializer):
    """The bias in ``outer_scope`` again, never partitioned, zeros unless given."""
    with v1.variable_scope(outer_scope) as inner_scope:
        inner_scope.set_partitioner(None)
        if initializer is None:
            initializer = v1.constant_initializer(0.0, dtype=dtype)
        return v1.get_variable(_BIAS_VARIABLE_NAME, [output_size], dtype=dtype,
                               initializer=initializer)  # fmt: skip


def _product(args, kernel):
    return tf.matmul(args[0] if len(args) == 1 else tf.concat(args, 1), kernel)


class _Linear:
    """``_Linear(args, output_size, build_bias)``: the variables now, ``sum_i
    args[i] W[i] (+ b)`` of the arguments of each call."""

    def __init__(self, args, output_size, build_bias, bias_initializer=None,
                 kernel_initializer=None):  # fmt: skip
        self._build_bias = build_bias
        args, self._is_sequence, depth = _arguments(args)
        dtype = args[0].dtype
        with v1.variable_scope(v1.get_variable_scope()) as outer_scope:
            self._weights = _kernel(depth, output_size, dtype, kernel_initializer)
            if build_bias:
                self._biases = _bias(outer_scope, output_size, dtype, bias_initializer)

    def __call__(self, args):
        res = _product(list(args) if self._is_sequence else [args], self._weights)
        return tf.nn.bias_add(res, self._biases) if self._build_bias else res


def _linear(args, output_size, bias, bias_initializer=None, kernel_initializer=None):
    """``_linear(args, output_size, bias)``: the variables and the product at once."""
    args, _, depth = _arguments(args)
    dtype = args[0].dtype
    with v1.variable_scope(v1.get_variable_scope()) as outer_scope:
        res = _product(args, _kernel(depth, output_size, dtype, kernel_initializer))
        if not bias:
            return res
        return tf.nn.bias_add(res, _bias(outer_scope, output_size, dtype, bias_initializer))
