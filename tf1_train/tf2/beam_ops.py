"""TF1 contrib's ``seq2seq`` beam search, its tensor functions and one search
step, in TF2 ops: ``gather_tree``, ``tile_batch``, GNMT's length and
coverage penalties, and ``beam_search_step`` (score every continuation,
keep the best ``beam_width``, gather the beams' state after them).

One implementation for both sides: tf1_train.compat's ``BeamSearchDecoder``
(held to TensorFlow 1.15.5 by tests/test_compat_contrib_dynamic_decode.py)
and the twin's (tf1_train/tf2/beam_search.py) step with these functions, so
scores and choices agree to the last bit on the same runtime (a reordered
sum would flip near-tied beams). They are TF 1.15's ops in its order; where
TF1 selected with the v1 ``where`` on same-shaped tensors, TF2's ``where`` is
the same selection.

``gather_tree`` was TF1's one C++ kernel in seq2seq (``GatherTree``), gone
from TensorFlow 2: here it is a backwards ``tf.scan`` over time that
follows each beam's parent pointers, then the kernel's end-token rule.
"""

from __future__ import annotations

import collections
from typing import Optional, Sequence

import numpy as np
import tensorflow as tf

from tf1_train.tf2.layers import graph_code

nest = tf.nest


# TF1's namedtuples, with TF1's type names (the final output's was
# "FinalBeamDecoderOutput"), so that a state or an output prints as it did.
BeamSearchDecoderState = collections.namedtuple(
    "BeamSearchDecoderState",
    ("cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"),
)
BeamSearchDecoderOutput = collections.namedtuple(
    "BeamSearchDecoderOutput", ("scores", "predicted_ids", "parent_ids")
)
FinalBeamSearchDecoderOutput = collections.namedtuple(
    "FinalBeamDecoderOutput", ("predicted_ids", "beam_search_decoder_output")
)
FinalBeamSearchDecoderOutput.__doc__ = """``predicted_ids`` ``[batch, time, beam]``
(time first with ``output_time_major``), best beam first, and the per-step
``BeamSearchDecoderOutput`` they were gathered from."""


def _dim(shape: tf.TensorShape, i: int):
    """A static dimension or None (v1's ``Dimension`` or v2's int)."""
    return tf.TensorShape(shape).as_list()[i] if shape.rank is not None else None


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


@graph_code
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
    batch = _dim(t.shape, 0)
    tiled = tf.tile(tf.expand_dims(t, 1), tiling)
    tiled = tf.reshape(tiled, tf.concat(([shape_t[0] * multiplier], shape_t[1:]), 0))
    static_batch = batch * multiplier if batch is not None else None
    tiled.set_shape(tf.TensorShape([static_batch]).concatenate(t.shape[1:]))
    return tiled


@graph_code
def tile_batch(t, multiplier: int, name: Optional[str] = None):
    """Each batch entry of each tensor of ``t`` repeated ``multiplier`` times
    in a row (``[b0, b0, b1, b1, ...]``), the layout ``BeamSearchDecoder``
    expects of an encoder's outputs and state (not ``tf.tile``'s)."""
    with tf.name_scope(name or "tile_batch"):
        return nest.map_structure(lambda t_: _tile_batch(t_, multiplier), t)


def length_penalty(sequence_lengths, penalty_factor):
    """GNMT's ``((5 + length) / 6) ** alpha`` (arXiv:1609.08144); the
    Python ``1.0`` when alpha is statically 0, as TF1 returned."""
    penalty_factor = tf.convert_to_tensor(penalty_factor, name="penalty_factor")
    penalty_factor.set_shape(())
    static = tf.get_static_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    numerator = (5.0 + tf.cast(sequence_lengths, tf.float32)) ** penalty_factor
    return tf.math.truediv(numerator, (5.0 + 1.0) ** penalty_factor)


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
    probs = tf.where(tf.equal(probs, 0.0), tf.ones_like(probs), probs)
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
    return tf.where(finished_mask, finished_probs, probs)


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


def check_ndims(t: tf.Tensor) -> None:
    """TF1 needed every state tensor's rank to reshape it."""
    if t.shape.rank is None:
        raise ValueError(f"Expected tensor ({t}) to have known rank, but ndims == None.")


def _mean_over_last(probs) -> tf.Tensor:
    return tf.reduce_mean(tf.concat([tf.expand_dims(p, -1) for p in probs], -1), -1)


def attention_probs(cell_state, coverage_penalty_weight, wrapper_state: type):
    """``[batch, beam, memory_time]`` alignments of the attention wrapper(s)
    in the state (``wrapper_state``: its state type, TF1's or the twin's),
    averaged over several wrappers and several mechanisms; None without the
    coverage penalty."""
    if coverage_penalty_weight == 0.0:
        return None
    if isinstance(cell_state, wrapper_state):
        states = [cell_state]
    elif isinstance(cell_state, tuple):
        states = [s for s in cell_state if isinstance(s, wrapper_state)]
    else:
        states = []
    if not states:
        raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
    per_layer = [_mean_over_last(s.alignments) if isinstance(s.alignments, tuple)
                 else s.alignments for s in states]  # fmt: skip
    return per_layer[0] if len(per_layer) == 1 else _mean_over_last(per_layer)


def initial_log_probs(batch_size, beam_width: int, dtype) -> tf.Tensor:
    """Only beam 0 alive (log prob 0, the others -inf), so that step 0
    expands it alone."""
    return tf.one_hot(
        tf.zeros([batch_size], tf.int32), depth=beam_width,
        on_value=tf.convert_to_tensor(0.0, dtype=dtype),
        off_value=tf.convert_to_tensor(-np.inf, dtype=dtype), dtype=dtype,
    )  # fmt: skip


def _step_lengths(state: BeamSearchDecoderState, end_token, batch_size, beam_width, vocab_size):
    """Each continuation's length: one more than its beam's, unless the beam
    had finished or the word is ``end_token``."""
    lengths_to_add = tf.one_hot(
        indices=tf.fill([batch_size, beam_width], end_token), depth=vocab_size,
        on_value=tf.constant(0, tf.int64), off_value=tf.constant(1, tf.int64), dtype=tf.int64,
    )  # fmt: skip
    add_mask = tf.cast(tf.logical_not(state.finished), tf.int64)
    lengths_to_add *= tf.expand_dims(add_mask, 2)
    return lengths_to_add + tf.expand_dims(state.lengths, 2)


def _vocab_size(logits: tf.Tensor):
    return _dim(logits.shape, -1) or tf.shape(logits)[-1]


def _continuation_scores(logits, attention_probs, beam_state, batch_size, beam_width,
                         end_token, length_penalty_weight, coverage_penalty_weight):  # fmt: skip
    """``(total log probs, scores, accumulated attention or None)`` of every
    (beam, word) continuation, ``[batch, beam, vocab]``: finished beams can
    only continue with ``end_token``, at no cost."""
    previously_finished = beam_state.finished
    not_finished = tf.logical_not(previously_finished)
    step_log_probs = mask_probs(tf.nn.log_softmax(logits), end_token, previously_finished)
    total_probs = tf.expand_dims(beam_state.log_probs, 2) + step_log_probs
    new_lengths = _step_lengths(beam_state, end_token, batch_size, beam_width,
                                _vocab_size(logits))  # fmt: skip
    accumulated = None
    if attention_probs is not None:
        attention_probs *= tf.expand_dims(tf.cast(not_finished, tf.float32), 2)
        accumulated = beam_state.accumulated_attention_probs + attention_probs
    scores = get_scores(total_probs, new_lengths, length_penalty_weight,
                        coverage_penalty_weight, previously_finished, accumulated)  # fmt: skip
    return total_probs, scores, accumulated


def beam_search_step(logits, next_cell_state, attention_probs, beam_state, batch_size,
                     beam_width, end_token, length_penalty_weight, coverage_penalty_weight,
                     gather_state):  # fmt: skip
    """One step on ``[batch, beam, vocab]`` logits: score all continuations,
    keep the best ``beam_width`` per batch entry, and gather the beams'
    probs, lengths, finished flags, attention (``attention_probs``: the
    step's ``[batch, beam, memory time]`` alignments, None without the
    coverage penalty) and cell state after them (``gather_state(beam_ids,
    tensor)`` for each of its tensors). ``(output, next state)``."""
    static_batch_size = tf.get_static_value(batch_size)
    total_probs, scores, accumulated = _continuation_scores(
        logits, attention_probs, beam_state, batch_size, beam_width, end_token,
        length_penalty_weight, coverage_penalty_weight,
    )  # fmt: skip
    vocab_size = _vocab_size(logits)
    scores_flat = tf.reshape(scores, [batch_size, -1])
    k = tf.convert_to_tensor(beam_width, dtype=tf.int32, name="beam_width")
    next_beam_scores, word_indices = tf.nn.top_k(scores_flat, k=k)
    next_beam_scores.set_shape([static_batch_size, beam_width])
    word_indices.set_shape([static_batch_size, beam_width])

    def gather(indices, from_, range_size, shape, name=None):
        return tensor_gather_helper(indices, from_, batch_size, range_size, shape, name)

    next_beam_probs = gather(word_indices, total_probs, beam_width * vocab_size, [-1],
                             "next_beam_probs")  # fmt: skip
    raw_word_ids = tf.math.floormod(word_indices, vocab_size, name="next_beam_word_ids")
    next_word_ids = tf.cast(raw_word_ids, tf.int32)
    next_beam_ids = tf.cast(word_indices / vocab_size, tf.int32, name="next_beam_parent_ids")
    previously_finished = gather(next_beam_ids, beam_state.finished, beam_width, [-1])
    next_finished = tf.logical_or(previously_finished, tf.equal(next_word_ids, end_token),
                                  name="next_beam_finished")  # fmt: skip
    lengths_to_add = tf.cast(tf.logical_not(previously_finished), tf.int64)
    next_lengths = gather(next_beam_ids, beam_state.lengths, beam_width, [-1]) + lengths_to_add
    next_accumulated = ()
    if accumulated is not None:
        next_accumulated = gather(next_beam_ids, accumulated, beam_width,
                                  [batch_size * beam_width, -1],
                                  "next_accumulated_attention_probs")  # fmt: skip
    next_cell_state = nest.map_structure(
        lambda from_: gather_state(next_beam_ids, from_), next_cell_state
    )
    next_state = BeamSearchDecoderState(
        cell_state=next_cell_state, log_probs=next_beam_probs, lengths=next_lengths,
        finished=next_finished, accumulated_attention_probs=next_accumulated,
    )  # fmt: skip
    output = BeamSearchDecoderOutput(next_beam_scores, next_word_ids, next_beam_ids)
    return output, next_state
