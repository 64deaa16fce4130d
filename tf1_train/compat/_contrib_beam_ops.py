"""The tensor functions under ``tf.contrib.seq2seq``'s beam search, as TF
1.15 computed them: ``gather_tree``, ``tile_batch`` and the scoring,
masking and gathering steps ``BeamSearchDecoder`` (_contrib_beam_search.py)
is built from.

``gather_tree`` was TF1's one C++ kernel in seq2seq (``GatherTree``), gone
from TensorFlow 2: here it is a backwards ``tf.scan`` over time that follows
each beam's parent pointers, then the kernel's end-token rule. The rest was
core ops in Python, so it is those ops again, in the same order, so that
beam scores and choices agree with TF1's to the last bit on the same
runtime (a reordered sum would flip near-tied beams). TF1's selection rule
stays (``tf.compat.v1.where``), and so do the static shapes it set, which
the decoder's reshapes rely on.
"""

from __future__ import annotations

from typing import Optional, Sequence

import tensorflow as tf
from absl import logging

v1 = tf.compat.v1
nest = tf.nest


def _merged_shape(name: str, shapes: Sequence[tf.TensorShape], ranks: Sequence[int]):
    """The kernel's shape function: each input's rank, step and parent ids
    alike, and the lengths' batch that of the ids; ValueError as TF1's
    graph building raised it."""
    try:
        for shape, rank in zip(shapes, ranks):
            shape.with_rank(rank)
        ids = shapes[0].merge_with(shapes[1])
        batch = tf.TensorShape([ids[1]]).merge_with(shapes[2])
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    return tf.TensorShape([ids[0], batch[0], ids[2]])


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token,
                name: Optional[str] = None) -> tf.Tensor:  # fmt: skip
    """Whole beams ``[max_time, batch, beam]`` from each step's ids and parent
    beams: each beam is followed back from step ``min(max_time, length)-1``;
    steps past the length, and past a beam's first ``end_token``, are
    ``end_token``. An out-of-range parent fails at run time (CPU)."""
    with tf.name_scope(name or "GatherTree"):
        step_ids = tf.convert_to_tensor(step_ids, tf.int32, name="step_ids")
        parent_ids = tf.convert_to_tensor(parent_ids, tf.int32, name="parent_ids")
        lengths = tf.convert_to_tensor(max_sequence_lengths, tf.int32, name="lengths")
        end_token = tf.convert_to_tensor(end_token, tf.int32, name="end_token")
        shape = _merged_shape(
            "GatherTree",
            [step_ids.shape, parent_ids.shape, lengths.shape, end_token.shape],
            [3, 3, 1, 0],
        )
        steps = tf.shape(step_ids)[0]
        lengths = tf.minimum(lengths, steps)
        own = tf.broadcast_to(tf.range(tf.shape(step_ids)[2]), tf.shape(step_ids)[1:])

        def back(carry, elems):
            ids, parents, time = elems
            at_last = tf.expand_dims(time >= lengths - 1, 1)
            beam = tf.where(at_last, own, carry[1])
            return tf.gather(ids, beam, batch_dims=1), tf.gather(parents, beam, batch_dims=1)

        beams, _ = tf.scan(
            back, (step_ids, parent_ids, tf.range(steps)), (tf.zeros_like(own), own), reverse=True
        )
        time = tf.reshape(tf.range(steps), [-1, 1, 1])
        beams = tf.where(time >= tf.reshape(lengths, [1, -1, 1]), end_token, beams)
        ended = tf.cumsum(tf.cast(tf.equal(beams, end_token), tf.int32), 0, exclusive=True)
        beams = tf.where(ended > 0, end_token, beams)
        beams.set_shape(shape)
        return beams


def _tile_batch(t, multiplier: int) -> tf.Tensor:
    """One tensor's ``tile_batch``; its static shape kept."""
    t = tf.convert_to_tensor(t, name="t")
    if t.shape.rank is None or t.shape.rank < 1:
        raise ValueError("t must have statically known rank")
    shape_t = tf.shape(t)
    tiling = [1] * (t.shape.rank + 1)
    tiling[1] = multiplier
    batch = tf.compat.dimension_value(t.shape[0])
    tiled = tf.tile(tf.expand_dims(t, 1), tiling)
    tiled = tf.reshape(tiled, tf.concat(([shape_t[0] * multiplier], shape_t[1:]), 0))
    static_batch = batch * multiplier if batch is not None else None
    tiled.set_shape(tf.TensorShape([static_batch]).concatenate(t.shape[1:]))
    return tiled


def tile_batch(t, multiplier: int, name: Optional[str] = None):
    """Each batch entry of each tensor of ``t`` repeated ``multiplier`` times
    in a row (``[b0, b0, b1, b1, ...]``), the layout ``BeamSearchDecoder``
    expects of an encoder's outputs and state (not ``tf.tile``'s)."""
    with tf.name_scope(name or "tile_batch"):
        return nest.map_structure(lambda t_: _tile_batch(t_, multiplier), t)


def check_ndims(t: tf.Tensor) -> None:
    """TF1 needed every state tensor's rank to reshape it."""
    if t.shape.rank is None:
        raise ValueError(f"Expected tensor ({t}) to have known rank, but ndims == None.")


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


def length_penalty(sequence_lengths, penalty_factor):
    """GNMT's ``((5 + length) / 6) ** alpha`` (arXiv:1609.08144); the
    Python ``1.0`` when alpha is statically 0, as TF1 returned."""
    penalty_factor = tf.convert_to_tensor(penalty_factor, name="penalty_factor")
    penalty_factor.set_shape(())
    static = tf.get_static_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    numerator = (5.0 + tf.cast(sequence_lengths, tf.float32)) ** penalty_factor
    return v1.div(numerator, (5.0 + 1.0) ** penalty_factor)


def get_scores(log_probs, sequence_lengths, length_penalty_weight,
               coverage_penalty_weight, finished, accumulated_attention_probs):  # fmt: skip
    """Hypothesis scores: log probs over the length penalty, plus for finished
    beams the weighted coverage penalty (sum of log min(attention, 1) over
    the source, zero attention counted as full)."""
    penalty = tf.cast(length_penalty(sequence_lengths, length_penalty_weight), log_probs.dtype)
    scores = log_probs / penalty
    weight = tf.convert_to_tensor(coverage_penalty_weight, name="coverage_penalty_weight")
    if weight.shape.rank != 0:
        raise ValueError(
            f"coverage_penalty_weight should be a scalar, but saw shape: {weight.shape}"
        )
    if tf.get_static_value(weight) == 0.0:
        return scores
    if accumulated_attention_probs is None:
        raise ValueError(
            "accumulated_attention_probs can be None only if coverage penalty is disabled."
        )
    probs = accumulated_attention_probs
    probs = v1.where(tf.equal(probs, 0.0), tf.ones_like(probs), probs)
    coverage = tf.reduce_sum(tf.math.log(tf.minimum(probs, 1.0)), 2)
    coverage *= tf.cast(finished, tf.float32)
    return scores + tf.expand_dims(coverage * weight, 2)


def mask_probs(probs, eos_token, finished):
    """Finished beams' log probs: all mass on ``eos_token`` (0 there, the
    dtype's minimum elsewhere); unfinished beams unchanged."""
    vocab_size = tf.shape(probs)[2]
    finished_row = tf.one_hot(
        eos_token, vocab_size, dtype=probs.dtype,
        on_value=tf.convert_to_tensor(0.0, dtype=probs.dtype), off_value=probs.dtype.min,
    )  # fmt: skip
    finished_probs = tf.tile(
        tf.reshape(finished_row, [1, 1, -1]), tf.concat([tf.shape(finished), [1]], 0)
    )
    finished_mask = tf.tile(tf.expand_dims(finished, 2), [1, 1, vocab_size])
    return v1.where(finished_mask, finished_probs, probs)


def tensor_gather_helper(gather_indices, gather_from, batch_size, range_size, gather_shape,
                         name: Optional[str] = None) -> tf.Tensor:  # fmt: skip
    """``gather_from``'s entries at per-batch ``gather_indices`` (offset by
    ``range_size`` per batch row) after reshaping it to ``gather_shape``;
    the result shaped ``shape(gather_from)[:1 + len(gather_shape)]``."""
    with tf.name_scope(name or "tensor_gather_helper"):
        range_ = tf.expand_dims(tf.range(batch_size) * range_size, 1)
        gather_indices = tf.reshape(gather_indices + range_, [-1])
        output = tf.gather(tf.reshape(gather_from, gather_shape), gather_indices)
        final_shape = tf.shape(gather_from)[: 1 + len(gather_shape)]
        static_batch = tf.get_static_value(batch_size)
        static_shape = tf.TensorShape([static_batch]).concatenate(
            gather_from.shape[1 : 1 + len(gather_shape)]
        )
        output = tf.reshape(output, final_shape, name="output")
        output.set_shape(static_shape)
        return output


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
