"""Beam search programs (``BeamSearchDecoder``, ``gather_tree``,
``tile_batch``) for tests/contrib_seq2seq_cases.py's ``run``: each is built
on TF 1.15's source for the goldens and on tf1_train.compat's for the test.

The decoders run an LSTMCell from a tiled, non-zero initial state with a
Dense projection to the vocabulary; the embedding is scaled up so that the
small uniform weights still give logits far enough apart for the beams to
part ways (parent ids other than the beam's own) within a few steps.
"""

from __future__ import annotations

import numpy as np
from contrib_seq2seq_cases import BATCH, TIME, UNITS, VOCAB, case, floats, tokens

SCALE = 6.0  # logits scale: peaked choices, beams that diverge


def _gather_tree_inputs():
    """Fixed ``[max_time=5, batch=4, beam=3]`` ids and parents: lengths
    below, at and above max_time and 0; end token 2 inside a path."""
    step_ids = np.array(
        [[[1, 3, 4], [5, 6, 7], [1, 1, 1], [8, 9, 10]],
         [[3, 2, 4], [2, 6, 3], [4, 5, 6], [1, 2, 3]],
         [[5, 6, 7], [8, 2, 9], [7, 8, 9], [4, 5, 6]],
         [[8, 9, 2], [1, 3, 4], [1, 2, 3], [7, 8, 9]],
         [[4, 4, 4], [5, 5, 5], [6, 6, 6], [9, 9, 9]]], np.int32,
    )  # fmt: skip
    parent_ids = np.array(
        [[[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
         [[2, 0, 1], [0, 0, 2], [1, 2, 0], [0, 1, 2]],
         [[1, 2, 0], [2, 1, 0], [0, 0, 1], [2, 2, 2]],
         [[0, 2, 1], [1, 1, 0], [2, 1, 0], [1, 0, 2]],
         [[2, 1, 0], [0, 2, 1], [1, 1, 1], [0, 0, 0]]], np.int32,
    )  # fmt: skip
    return step_ids, parent_ids


@case("beam")
def gather_tree_fixed(s2s, tf):
    step_ids, parent_ids = _gather_tree_inputs()
    out = {}
    for name, lengths in (("mixed", [5, 3, 0, 7]), ("short", [1, 2, 4, 5])):
        out[name] = s2s.gather_tree(step_ids, parent_ids, tf.constant(lengths), 2)
    out["end_token_9"] = s2s.gather_tree(step_ids, parent_ids, tf.constant([5, 5, 5, 5]), 9)
    return out


@case("beam")
def gather_tree_placeholders(s2s, tf):
    """Ids of unknown time and batch, as a decoder's outputs come."""
    step_ids, parent_ids = _gather_tree_inputs()
    ids = tf.placeholder_with_default(step_ids, [None, None, 3])
    parents = tf.placeholder_with_default(parent_ids, [None, None, 3])
    out = s2s.gather_tree(ids, parents, tf.constant([4, 2, 5, 3]), tf.constant(6))
    return {"ids": out, "static_beam": tf.constant(tf.dimension_value(out.shape[2]))}


def _static_shape(tf, t):
    return tf.constant([-1 if d is None else d for d in t.shape.as_list()])


@case("beam")
def tile_batch_tensor_and_state(s2s, tf):
    x = tf.constant(floats(1, (BATCH, 2, 4)))
    state = tf.nn.rnn_cell.LSTMStateTuple(
        tf.constant(floats(2, (BATCH, UNITS))),
        tf.placeholder_with_default(floats(3, (BATCH, UNITS)), [None, UNITS]),
    )
    tiled_x = s2s.tile_batch(x, 3)
    tiled = s2s.tile_batch(state, multiplier=2)
    lengths = s2s.tile_batch(tf.constant([5, 3, 1]), 4)
    return {
        "x": tiled_x, "c": tiled.c, "h": tiled.h, "lengths": lengths,
        "x_shape": _static_shape(tf, tiled_x), "h_shape": _static_shape(tf, tiled.h),
    }  # fmt: skip


@case("beam")
def bad_tile_batch_scalar(s2s, tf):
    return {"x": s2s.tile_batch(tf.constant(1.0), 3)}


def _projection(tf):
    """Dense logits, sharpened so that the beams' choices differ."""
    return tf.layers.Dense(VOCAB, activation=lambda x: x * SCALE, name="proj")


def _beam_search(s2s, tf, beam_width=3, end_token=0, iterations=TIME, tile=True,
                 embedding_fn=False, decode_kwargs=None, **decoder_kwargs):  # fmt: skip
    """An LSTMCell beam search from a tiled state, its outputs fetched."""
    cell = tf.nn.rnn_cell.LSTMCell(UNITS)
    table = tf.get_variable("embedding", [VOCAB, UNITS])
    embedding = table
    if embedding_fn:
        embedding = lambda ids: tf.nn.embedding_lookup(table, ids)  # noqa: E731
    state = tf.nn.rnn_cell.LSTMStateTuple(
        tf.constant(floats(4, (BATCH, UNITS))), tf.constant(floats(5, (BATCH, UNITS)))
    )
    if tile:
        state = s2s.tile_batch(state, beam_width)
    decoder = s2s.BeamSearchDecoder(
        cell, embedding, tf.constant(tokens(6, (BATCH,))), end_token, state, beam_width,
        output_layer=decoder_kwargs.pop("output_layer", _projection(tf)),
        **decoder_kwargs,
    )  # fmt: skip
    outputs, final, lengths = s2s.dynamic_decode(
        decoder, maximum_iterations=iterations, **(decode_kwargs or {})
    )
    steps = outputs.beam_search_decoder_output
    return {
        "predicted_ids": outputs.predicted_ids, "scores": steps.scores,
        "parent_ids": steps.parent_ids, "step_ids": steps.predicted_ids,
        "lengths": lengths, "log_probs": final.log_probs, "final_lengths": final.lengths,
        "finished": final.finished, "c": final.cell_state.c, "h": final.cell_state.h,
    }  # fmt: skip


@case("beam")
def beam_lstm_width3(s2s, tf):
    return _beam_search(s2s, tf)


@case("beam")
def beam_lstm_width1(s2s, tf):
    return _beam_search(s2s, tf, beam_width=1)


@case("beam")
def beam_length_penalty(s2s, tf):
    return _beam_search(s2s, tf, end_token=10, iterations=TIME + 1, length_penalty_weight=0.6)


@case("beam")
def beam_end_token_early(s2s, tf):
    return _beam_search(s2s, tf, end_token=10, iterations=TIME + 1)


@case("beam")
def beam_embedding_callable_time_major(s2s, tf):
    return _beam_search(s2s, tf, embedding_fn=True, decode_kwargs={"output_time_major": True})


@case("beam")
def beam_multi_cell_no_output_layer(s2s, tf):
    """Nested state (a GRU and an LSTM as wide as the vocabulary, whose
    output is the logits): width 2, batch and time left to run time."""
    width = 2
    cell = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.GRUCell(UNITS), tf.nn.rnn_cell.LSTMCell(VOCAB)]
    )
    start = tf.placeholder_with_default(tokens(8, (BATCH,)), [None])
    state = cell.zero_state(tf.size(start) * width, tf.float32)
    embedding = tf.get_variable("embedding", [VOCAB, UNITS]) * SCALE
    decoder = s2s.BeamSearchDecoder(cell, embedding, start, 3, state, width)
    outputs, final, lengths = s2s.dynamic_decode(decoder, maximum_iterations=tf.constant(TIME - 1))
    return {
        "predicted_ids": outputs.predicted_ids,
        "scores": outputs.beam_search_decoder_output.scores,
        "parent_ids": outputs.beam_search_decoder_output.parent_ids,
        "lengths": lengths, "log_probs": final.log_probs,
        "state": tf.concat(tf.nest.flatten(final.cell_state), -1),
    }  # fmt: skip


@case("beam")
def bad_beam_output_layer(s2s, tf):
    return _beam_search(s2s, tf, output_layer=lambda x: x)


@case("beam")
def bad_beam_end_token(s2s, tf):
    return _beam_search(s2s, tf, end_token=[1, 2])


@case("beam")
def bad_beam_untiled_state(s2s, tf):
    return _beam_search(s2s, tf, tile=False)


@case("beam")
def bad_beam_coverage_without_attention(s2s, tf):
    return _beam_search(s2s, tf, coverage_penalty_weight=0.4)


def _attention_beam_search(s2s, tf, memory, start_tokens, batch, **decoder_kwargs):
    """Beam search (width 3) over an LSTM wrapped in Luong attention with
    alignment history, the tiled memory masked to lengths 4, 2, 3."""
    width = 3
    lengths = tf.placeholder_with_default([4, 2, 3], [None])
    mechanism = s2s.LuongAttention(
        UNITS, s2s.tile_batch(memory, width), s2s.tile_batch(lengths, width)
    )
    cell = s2s.AttentionWrapper(
        tf.nn.rnn_cell.LSTMCell(UNITS), mechanism, attention_layer_size=UNITS,
        alignment_history=True,
    )  # fmt: skip
    encoder_state = tf.nn.rnn_cell.LSTMStateTuple(
        memory[:, -1] * 0.5, tf.tanh(memory[:, 0])
    )  # a stand-in for an encoder's final state
    state = cell.zero_state(batch * width, tf.float32)
    state = state.clone(cell_state=s2s.tile_batch(encoder_state, width))
    embedding = tf.get_variable("embedding", [VOCAB, UNITS])
    decoder = s2s.BeamSearchDecoder(
        cell, embedding, start_tokens, 10, state, width, output_layer=_projection(tf),
        **decoder_kwargs,
    )  # fmt: skip
    outputs, final, lengths = s2s.dynamic_decode(decoder, maximum_iterations=TIME + 1)
    steps = outputs.beam_search_decoder_output
    history = final.cell_state.alignment_history
    return {
        "predicted_ids": outputs.predicted_ids, "scores": steps.scores,
        "parent_ids": steps.parent_ids, "lengths": lengths, "log_probs": final.log_probs,
        "final_lengths": final.lengths, "coverage": final.accumulated_attention_probs,
        "alignments": final.cell_state.alignments, "attention": final.cell_state.attention,
        "history": history.stack() if isinstance(history, tf.TensorArray) else history,
        "history_kept": tf.constant(isinstance(history, tf.TensorArray)),
    }  # fmt: skip


@case("beam")
def beam_attention_coverage_penalty(s2s, tf):
    """Static batch: coverage and length penalties; TF1 left the alignment
    history unsorted (its shape test refuses ``[batch * beam, time]``)."""
    memory = tf.constant(floats(7, (BATCH, 4, UNITS)))
    start = tf.constant(tokens(6, (BATCH,)))
    return _attention_beam_search(s2s, tf, memory, start, BATCH, length_penalty_weight=0.6,
                                  coverage_penalty_weight=0.4)  # fmt: skip


@case("beam")
def beam_attention_history_reordered(s2s, tf):
    """Unknown batch: the alignment history is sorted into the beams' order."""
    memory = tf.placeholder_with_default(floats(7, (BATCH, 4, UNITS)), [None, 4, UNITS])
    start = tf.placeholder_with_default(tokens(6, (BATCH,)), [None])
    return _attention_beam_search(s2s, tf, memory, start, tf.shape(start)[0],
                                  coverage_penalty_weight=0.25)  # fmt: skip
