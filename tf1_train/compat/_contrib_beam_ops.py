"""The parts of ``tf.contrib.seq2seq``'s beam search that only TF1 code
meets: the checks and the sort of TensorArrays in a cell state (an
``AttentionWrapper``'s alignment history) after the beams' paths, and the
gather that passes TensorArrays by. The tensor functions both sides share
(``gather_tree``, ``tile_batch``, the penalties, one search step) are
tf1_train/tf2/beam_ops.py's; TF1's selection rule stays here
(``tf.compat.v1.where``), and so do the static shapes it set.
"""

from __future__ import annotations

import tensorflow as tf
from absl import logging

from tf1_train.tf2.beam_ops import check_ndims, gather_tree, tensor_gather_helper

v1 = tf.compat.v1
nest = tf.nest


def check_static_batch_beam(shape: tf.TensorShape, batch_size, beam_width: int) -> bool:
    """TF1's static test that a TensorArray's elements reshape to
    ``[batch, beam, -1]``; on failure it warned and left the array alone.
    TF1's condition as it was: a ``[batch * beam, depth]`` element with a
    known depth fails it too."""
    dims = [tf.compat.dimension_value(d) for d in shape]
    incompatible = (
        batch_size is not None
        and dims[0] is not None
        and (
            dims[0] != batch_size * beam_width
            or (len(dims) >= 2 and dims[1] is not None
                and (dims[0] != batch_size or dims[1] != beam_width))
        )
    )  # fmt: skip
    if incompatible:
        logging.warning(
            "TensorArray reordering expects elements to be reshapable to %s which is "
            "incompatible with the current shape %s. Consider setting "
            "reorder_tensor_arrays to False to disable TensorArray reordering during "
            "the beam search.",
            tf.TensorShape([batch_size, beam_width, None]), shape,
        )  # fmt: skip
    return not incompatible


def check_batch_beam(t: tf.Tensor, batch_size, beam_width: int):
    """The run-time form of that test on the stacked array."""
    what = t if tf.executing_eagerly() else t.name
    message = (
        "TensorArray reordering expects elements to be reshapable to [batch_size, "
        f"beam_size, -1] which is incompatible with the dynamic shape of {what} "
        "elements. Consider setting reorder_tensor_arrays to False to disable "
        "TensorArray reordering during the beam search."
    )
    shape = tf.shape(t)
    condition = tf.equal(shape[1], batch_size * beam_width)
    if t.shape.rank != 2:
        split = tf.logical_and(tf.equal(shape[1], batch_size), tf.equal(shape[2], beam_width))
        condition = tf.logical_or(condition, split)
    return tf.debugging.Assert(condition, [message])


def gather_tree_from_array(t: tf.Tensor, parent_ids: tf.Tensor, sequence_length) -> tf.Tensor:
    """A stacked TensorArray ``[max_time, batch * beam, ...]`` (or ``[max_time,
    batch, beam, ...]``) with each step's beams put in the order of the final
    beams' paths; steps past a beam's length keep their own beam."""
    dims = [tf.compat.dimension_value(d) for d in parent_ids.shape]
    max_time, batch_size, beam_width = (
        d or tf.shape(parent_ids)[i] for i, d in enumerate(dims)
    )  # fmt: skip
    beam_ids = tf.expand_dims(tf.expand_dims(tf.range(beam_width), 0), 0)
    beam_ids = tf.tile(beam_ids, [max_time, batch_size, 1])
    max_lengths = tf.cast(tf.reduce_max(sequence_length, axis=1), tf.int32)
    sorted_ids = gather_tree(beam_ids, parent_ids, max_lengths, end_token=beam_width + 1)
    in_bound = tf.transpose(tf.sequence_mask(sequence_length, maxlen=max_time), perm=[2, 0, 1])
    sorted_ids = v1.where(in_bound, x=sorted_ids, y=beam_ids)
    time_ind = tf.tile(tf.reshape(tf.range(max_time), [-1, 1, 1]), [1, batch_size, beam_width])
    batch_ind = tf.tile(tf.reshape(tf.range(batch_size), [-1, 1, 1]), [1, max_time, beam_width])
    batch_ind = tf.transpose(batch_ind, perm=[1, 0, 2])
    indices = tf.stack([time_ind, batch_ind, sorted_ids], -1)
    final_shape = tf.shape(t)
    gather_from = tf.reshape(t, [max_time, batch_size, beam_width, -1])
    return tf.reshape(tf.gather_nd(gather_from, indices), final_shape)


def maybe_tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                               gather_shape):  # fmt: skip
    """``tensor_gather_helper`` for a tensor of rank >= ``len(gather_shape)``;
    TensorArrays and smaller tensors (an attention state's ``time``) pass."""
    if isinstance(gather_from, tf.TensorArray):
        return gather_from
    check_ndims(gather_from)
    if gather_from.shape.rank >= len(gather_shape):
        return tensor_gather_helper(
            gather_indices, gather_from, batch_size, range_size, gather_shape
        )
    return gather_from
