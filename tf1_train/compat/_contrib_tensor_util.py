"""``tensorflow.contrib.framework.python.framework.tensor_util``, as TF 1.15
defined it (and the names ``tf.contrib.framework`` re-exported from it).

TF1 metric and loss code (SSD-Tensorflow, OpenSeq2Seq, slim-era trainers)
checked shapes with ``with_shape`` / ``with_same_shape`` and summed losses
with ``reduce_sum_n``; tf-slim dropped them. ``is_tensor``,
``assert_same_float_dtype``, ``assert_scalar`` and
``convert_to_tensor_or_sparse_tensor`` were TensorFlow's own functions,
which 2.21 keeps; the others are TF 1.15's ops again: a shape known when
the graph is built is checked then (ValueError), one known only when it
runs by an ``Assert`` the result depends on.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import sparse_tensor, tensor_util
from tensorflow.python.ops import check_ops

is_tensor = tensor_util.is_tf_type
assert_same_float_dtype = check_ops.assert_same_float_dtype
assert_scalar = check_ops.assert_scalar
convert_to_tensor_or_sparse_tensor = sparse_tensor.convert_to_tensor_or_sparse_tensor


def assert_scalar_int(tensor, name=None):
    """``tensor`` after checking it is a 0-D integer (ValueError otherwise)."""
    with tf.name_scope(name or "assert_scalar_int") as scope:
        tensor = tf.convert_to_tensor(tensor)
        if not tensor.dtype.base_dtype.is_integer:
            raise ValueError(
                f"Expected integer type for {tensor.name}, received type: {tensor.dtype}."
            )
        return check_ops.assert_scalar(tensor, name=scope)


def reduce_sum_n(tensors, name=None):
    """The sum of every element of every tensor, a scalar."""
    if not tensors:
        raise ValueError("No tensors provided.")
    with tf.name_scope(name or "reduce_sum_n") as scope:
        sums = [tf.reduce_sum(t, name=f"{t.op.name}/sum") for t in tensors]
        return sums[0] if len(sums) == 1 else tf.add_n(sums, name=scope)


def remove_squeezable_dimensions(predictions, labels, name=None):
    """(predictions, labels) with the last axis of the one of rank one more dropped."""
    with tf.name_scope(name or "remove_squeezable_dimensions"):
        predictions, labels = tf.convert_to_tensor(predictions), tf.convert_to_tensor(labels)
        p_shape, l_shape = predictions.shape, labels.shape
        if p_shape.ndims is not None and l_shape.ndims is not None:
            diff = p_shape.ndims - l_shape.ndims
            if diff == -1:
                labels = tf.squeeze(labels, [-1])
            elif diff == 1:
                predictions = tf.squeeze(predictions, [-1])
            return predictions, labels
        diff = tf.rank(predictions) - tf.rank(labels)
        if p_shape.ndims is None or p_shape.dims[-1].is_compatible_with(1):
            predictions = tf.compat.v1.cond(
                tf.equal(1, diff), lambda: tf.squeeze(predictions, [-1]), lambda: predictions
            )
        if l_shape.ndims is None or l_shape.dims[-1].is_compatible_with(1):
            labels = tf.compat.v1.cond(
                tf.equal(-1, diff), lambda: tf.squeeze(labels, [-1]), lambda: labels
            )
        return predictions, labels


def _assert_shape_op(expected_shape, tensor):
    """An Assert that ``tensor``'s shape is ``expected_shape`` (-1: any)."""
    with tf.name_scope("assert_shape") as scope:
        actual = tf.shape(tensor, name="actual")
        if isinstance(expected_shape, tf.TensorShape) and not expected_shape.is_fully_defined():
            expected_shape = [d if d else -1 for d in expected_shape.as_list()]
        with tf.name_scope("is_shape"):
            is_rank = tf.equal(tf.size(expected_shape), tf.rank(tensor))
            same = tf.reduce_all(
                tf.logical_or(tf.equal(expected_shape, -1), tf.equal(expected_shape, actual))
            )
            is_shape = tf.logical_and(is_rank, same)
        message = f"Wrong shape for {tensor.name} [expected] [actual]."
        return tf.debugging.Assert(is_shape, [message, expected_shape, actual], name=scope)


def _expected(expected_shape, tensor):
    """``expected_shape`` as TF 1.15 took it: an int32 tensor or a 1-D int32 array."""
    if is_tensor(expected_shape) and expected_shape.dtype.base_dtype != tf.int32:
        raise ValueError(
            f"Invalid dtype {expected_shape.dtype} for shape {expected_shape} expected of "
            f"tensor {tensor.name}."
        )
    if isinstance(expected_shape, (list, tuple)):
        given = np.asarray(expected_shape)
        empty_or_int64 = not expected_shape or given.dtype == np.int64
        expected_shape = np.asarray(expected_shape, np.int32) if empty_or_int64 else given
    if isinstance(expected_shape, np.ndarray):
        if expected_shape.ndim > 1:
            raise ValueError(
                f"Invalid rank {expected_shape.ndim} for shape {expected_shape} expected of "
                f"tensor {tensor.name}."
            )
        if expected_shape.dtype != np.int32:
            raise ValueError(
                f"Invalid dtype {expected_shape.dtype} for shape {expected_shape} expected of "
                f"tensor {tensor.name}."
            )
    return expected_shape


def with_shape(expected_shape, tensor):
    """``tensor``, its shape checked against ``expected_shape``: when the graph
    is built if both are known, else by an Assert (and the shape set)."""
    if isinstance(tensor, tf.SparseTensor):
        raise ValueError("SparseTensor not supported.")
    expected_shape = _expected(expected_shape, tensor)
    actual = tensor.shape
    if not actual.is_fully_defined() or is_tensor(expected_shape):
        with tf.name_scope(f"{tensor.op.name}/"):
            if not is_tensor(expected_shape) and len(expected_shape) < 1:
                return tf.reshape(tensor, [])
            with tf.control_dependencies([_assert_shape_op(expected_shape, tensor)]):
                result = tf.identity(tensor)
            if not is_tensor(expected_shape):
                result.set_shape(expected_shape)
            return result
    if not is_tensor(expected_shape) and not actual.is_compatible_with(expected_shape):
        if len(expected_shape) < 1 and actual.is_compatible_with([1]):
            with tf.name_scope(f"{tensor.op.name}/"):
                return tf.reshape(tensor, [])
        raise ValueError(
            f"Invalid shape for tensor {tensor.name}, expected {expected_shape}, got {actual}."
        )
    return tensor


def with_same_shape(expected_tensor, tensor):
    """``tensor``, its shape checked against ``expected_tensor``'s."""
    with tf.name_scope(f"{tensor.op.name}/"):
        shape = expected_tensor.shape
        expected = (
            shape.as_list()
            if shape.is_fully_defined()
            else tf.shape(expected_tensor, name="expected_shape")
        )
        return with_shape(expected, tensor)
