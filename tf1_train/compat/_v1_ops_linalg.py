"""More ops TF 1.15 built and TensorFlow 2 builds otherwise, built again under
``--v1_seeds`` (see _v1_ops.py): ``tf.linspace``, ``tf.eye`` and the
``matrix_diag`` family, ``tf.einsum``, and the products ``tf.zeros`` and
``tf.ones`` of a shape holding a tensor built under NumPy 1.x. Each builds the
same values with TF 1.15.5's number of ops (dopamine's C51, Rainbow and IQN
support before their networks; XLNet's attention masks and relative
positions), so the draws after them take TF 1.15.5's seeds; in eager code and
``tf.function``s they call TF 2's.
"""

import functools
import operator
from typing import Callable

from tf1_train.compat._v1_ops import _in_graph


def install(replace: Callable) -> None:
    """Each function below in place of TensorFlow's (``replace``: _v1_ops')."""
    from tensorflow.python.ops import array_ops, math_ops, special_math_ops

    replace(math_ops.linspace_nd, _linspace(math_ops.linspace_nd))
    replace(array_ops.matrix_diag, _matrix_diag(array_ops.matrix_diag))
    replace(array_ops.matrix_diag_part, _matrix_diag_part(array_ops.matrix_diag_part))
    replace(array_ops.matrix_set_diag, _matrix_set_diag(array_ops.matrix_set_diag))
    array_ops._constant_if_small = _constant_if_small(array_ops._constant_if_small)
    replace(special_math_ops.einsum, _einsum(special_math_ops.einsum))


def _linspace(original: Callable) -> Callable:
    """``tf.linspace``/``tf.lin_space`` of scalars: TF 1.15's was the
    ``LinSpace`` op itself (three constants and the op); TF 2's
    ``linspace_nd`` builds 74 ops (casts, broadcasts, a range, a concat) for
    the same values (dopamine's C51/Rainbow/IQN support, before their
    networks). ``axis=`` or N-d bounds (TF 2 only) take TF 2's."""
    from tensorflow.python.ops import gen_math_ops

    def linspace(start, stop, num, name=None, axis=0):
        if not _in_graph() or axis != 0 or any(_rank(v) not in (0, None) for v in (start, stop)):
            return original(start, stop, num, name=name, axis=axis)
        return gen_math_ops.lin_space(start, stop, num, name=name)

    return linspace


def _rank(value):
    """The rank of a tensor, array or Python number (None if unknown)."""
    import numpy as np

    shape = getattr(value, "shape", None)
    if shape is None:
        return np.ndim(value)
    return getattr(shape, "rank", len(shape))


def _constant_if_small(original: Callable) -> Callable:
    """``tf.zeros([n, 16, bsz])``, ``tf.ones`` of a shape list holding a tensor:
    both TFs try ``np.prod(shape) < 1000`` first. NumPy 1.x (TF 1.15's) made an
    object array of the list and multiplied the tensors (a ``Mul`` and a
    constant per factor, a ``Less`` and its constant) before ``if`` refused the
    tensor; NumPy 2 refuses the tensor before any op. Those ops again."""
    from tensorflow.python.framework import tensor_util

    def constant_if_small(value, shape, dtype, name, layout=None):
        if (
            _in_graph()
            and isinstance(shape, (list, tuple))
            and shape
            and any(tensor_util.is_tf_type(d) for d in shape)
            and all(tensor_util.is_tf_type(d) or isinstance(d, int) for d in shape)
        ):
            try:
                bool(functools.reduce(operator.mul, shape) < 1000)
            except TypeError:
                pass
        return original(value, shape, dtype, name, layout=layout)

    return constant_if_small


def _matrix_diag(original: Callable) -> Callable:
    """``tf.matrix_diag``/``tf.linalg.diag`` (and ``tf.eye``): TF 1.15.5 built
    ``MatrixDiag`` (its forward-compatibility date was before V2's); TF 2
    builds ``MatrixDiagV3`` with ``k``, ``num_rows``, ``num_cols`` and
    ``padding_value`` constants (four ops more). Same values."""
    from tensorflow.python.ops import gen_array_ops

    def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
                    align="RIGHT_LEFT"):  # fmt: skip
        if _in_graph() and (k, num_rows, num_cols, padding_value) == (0, -1, -1, 0):
            return gen_array_ops.matrix_diag(diagonal=diagonal, name=name)
        return original(diagonal, name, k, num_rows, num_cols, padding_value, align)

    return matrix_diag


def _matrix_diag_part(original: Callable) -> Callable:
    """``tf.matrix_diag_part``: TF 1.15.5's ``MatrixDiagPart`` (TF 2: V3 and
    two constants)."""
    from tensorflow.python.ops import gen_array_ops

    def matrix_diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
        if _in_graph() and (k, padding_value) == (0, 0):
            return gen_array_ops.matrix_diag_part(input=input, name=name)
        return original(input, name, k, padding_value, align)

    return matrix_diag_part


def _matrix_set_diag(original: Callable) -> Callable:
    """``tf.matrix_set_diag`` (and ``tf.eye`` of a non-square shape): TF
    1.15.5's ``MatrixSetDiag`` (TF 2: V3 and a ``k`` constant)."""
    from tensorflow.python.ops import gen_array_ops

    def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
        if _in_graph() and k == 0:
            return gen_array_ops.matrix_set_diag(input=input, diagonal=diagonal, name=name)
        return original(input, diagonal, name, k, align)

    return matrix_set_diag


def _einsum(original: Callable) -> Callable:
    """``tf.einsum``: TF 1.15 built it from transposes, reshapes and a
    ``MatMul`` (a dozen ops for ``'ibnd,jbnd->ijbn'``); TF 2 builds one
    ``Einsum`` op. TensorFlow 2.21 keeps TF 1.15's implementation as
    ``special_math_ops._einsum_v1``: in a graph, with only ``name=`` (all TF
    1.15 took), that one is built again. An equation TF 1.15 refused (an axis
    repeated in one operand, ``'ii->i'``: refused while parsing, before any
    op) takes TF 2's."""
    from tensorflow.python.ops import special_math_ops

    def einsum(equation, *inputs, **kwargs):
        if _in_graph() and set(kwargs) <= {"name"}:
            try:
                return special_math_ops._einsum_v1(equation, *inputs, **kwargs)
            except ValueError:
                pass
        return original(equation, *inputs, **kwargs)

    return einsum
