"""TF1 contrib's ``seq2seq.BeamSearchDecoder`` for a TF2 twin: the
inference decoder of NMT, GNMT-style translators and summarizers, which TF2
no longer ships (TensorFlow Addons, its TF2 home, is unmaintained). The
search step is the one tf1_train.compat's ``BeamSearchDecoder`` runs
(tf1_train/tf2/beam_ops.py), so a twin that restored the TF1 checkpoint
finds the same beams with the same scores (tests/test_tf2_beam_search.py).

TF1's ``BeamSearchDecoder(cell, embedding, start_tokens, end_token,
initial_state, beam_width, output_layer, ...)`` becomes
``BeamSearchDecoder(decoder, embedding, start_tokens, ...)``: the twin's
``BasicDecoder`` holds the cell and the output projection (their variables,
made once, serve the training decode and this one, as TF1's names did), and
``dynamic_decode(beam_decoder, maximum_iterations=...)`` runs it. As in
TF1, the initial state and an attention mechanism's memory have
``batch * beam_width`` rows, made with ``tile_batch``::

    mechanism.setup_memory(tile_batch(memory, beam), tile_batch(lengths, beam))
    state = cell.zero_state(batch * beam, tf.float32).clone(
        cell_state=tile_batch(encoder_state, beam))

Left out (refused in one line): ``impute_finished``; the state has no
TensorArrays to reorder (the twin's wrapper keeps no alignment history).
"""

from __future__ import annotations

from typing import Callable, Union

import tensorflow as tf

from tf1_train.tf2 import attention
from tf1_train.tf2.beam_ops import (
    BeamSearchDecoderOutput,
    BeamSearchDecoderState,
    FinalBeamSearchDecoderOutput,
    attention_probs,
    beam_search_step,
    check_ndims,
    gather_tree,
    initial_log_probs,
    tensor_gather_helper,
    tile_batch,
)
from tf1_train.tf2.decode import BasicDecoder, _time_major, decode_loop

nest = tf.nest

__all__ = [
    "BeamSearchDecoder",
    "BeamSearchDecoderOutput",
    "BeamSearchDecoderState",
    "FinalBeamSearchDecoderOutput",
    "decode_beams",
    "gather_tree",
    "tile_batch",
]


class BeamSearchDecoder:
    """Beam search over ``decoder``'s cell and projection, from
    ``initial_state`` (``batch * beam_width`` rows): each step scores every
    (beam, word) continuation by its summed log probability over GNMT's
    length penalty (plus the coverage penalty of the attention's alignments
    for finished beams), keeps the best ``beam_width`` per batch entry and
    reorders the cell state after them."""

    def __init__(self, decoder: BasicDecoder, embedding: Union[tf.Variable, Callable],
                 start_tokens, end_token, initial_state, beam_width: int,
                 length_penalty_weight: float = 0.0, coverage_penalty_weight: float = 0.0,
                 reorder_tensor_arrays: bool = True):  # fmt: skip
        del reorder_tensor_arrays  # no TensorArray in a twin's state
        if not isinstance(decoder, BasicDecoder):
            raise TypeError(
                "decoder must be a tf1_train.tf2.decode.BasicDecoder (the cell and the "
                f"output projection), got {type(decoder).__name__}"
            )
        self.decoder, self.beam_width = decoder, beam_width
        self.length_penalty_weight = length_penalty_weight
        self.coverage_penalty_weight = coverage_penalty_weight
        self._embed = embedding if callable(embedding) else (
            lambda ids: tf.nn.embedding_lookup(embedding, ids)
        )  # fmt: skip
        start_tokens = tf.convert_to_tensor(start_tokens, tf.int32, name="start_tokens")
        if start_tokens.shape.rank != 1:
            raise ValueError("start_tokens must be a vector")
        self.end_token = tf.convert_to_tensor(end_token, tf.int32, name="end_token")
        if self.end_token.shape.rank != 0:
            raise ValueError("end_token must be a scalar")
        self.batch_size = tf.size(start_tokens)
        self._initial_cell_state = nest.map_structure(self._maybe_split, initial_state)
        self._start_inputs = self._embed(tf.tile(tf.expand_dims(start_tokens, 1), [1, beam_width]))
        self._finished = tf.one_hot(
            tf.zeros([self.batch_size], tf.int32), depth=beam_width,
            on_value=False, off_value=True, dtype=tf.bool,
        )  # fmt: skip

    def _attention(self, cell_state):
        return attention_probs(cell_state, self.coverage_penalty_weight,
                               attention.AttentionWrapperState)  # fmt: skip

    def initialize(self):
        """``(finished, start inputs, state)``: only beam 0 alive."""
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        probs = self._attention(self._initial_cell_state)
        state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state,
            log_probs=initial_log_probs(self.batch_size, self.beam_width, dtype),
            finished=self._finished,
            lengths=tf.zeros([self.batch_size, self.beam_width], tf.int64),
            accumulated_attention_probs=() if probs is None else probs,
        )  # fmt: skip
        return self._finished, self._start_inputs, state

    def step(self, time, inputs, state: BeamSearchDecoderState):
        """``(BeamSearchDecoderOutput, next state, next inputs, finished)``:
        the cell and projection on the ``batch * beam`` rows, one search
        step, the chosen words embedded (the start inputs once all finished)."""
        del time
        cell_state = nest.map_structure(self._maybe_merge, state.cell_state)
        logits, next_cell_state = self.decoder.project(self._merge(inputs), cell_state)
        next_cell_state = nest.map_structure(self._maybe_split, next_cell_state)
        output, next_state = beam_search_step(
            self._split(logits), next_cell_state, self._attention(next_cell_state), state,
            self.batch_size, self.beam_width, self.end_token, self.length_penalty_weight,
            self.coverage_penalty_weight, self._gather_state,
        )  # fmt: skip
        next_inputs = tf.cond(
            tf.reduce_all(next_state.finished),
            lambda: self._start_inputs,
            lambda: self._embed(output.predicted_ids),
        )
        return output, next_state, next_inputs, next_state.finished

    def finalize(self, outputs: BeamSearchDecoderOutput, final_state: BeamSearchDecoderState):
        """Whole beams by ``gather_tree``, to each batch entry's longest beam."""
        max_lengths = tf.cast(tf.reduce_max(final_state.lengths, axis=1), tf.int32)
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids, max_lengths,
                                    self.end_token)  # fmt: skip
        return FinalBeamSearchDecoderOutput(predicted_ids, outputs)

    def _gather_state(self, beam_ids, t):
        if t.shape.rank < 2:  # an attention state's time
            return t
        rows = self.batch_size * self.beam_width
        return tensor_gather_helper(beam_ids, t, self.batch_size, self.beam_width, [rows, -1])

    def _merge(self, t: tf.Tensor) -> tf.Tensor:
        """``[batch, beam, ...]`` -> ``[batch * beam, ...]``."""
        static = tf.get_static_value(self.batch_size)
        rows = None if static is None else static * self.beam_width
        merged = tf.reshape(t, tf.concat(([self.batch_size * self.beam_width],
                                          tf.shape(t)[2:]), 0))  # fmt: skip
        merged.set_shape(tf.TensorShape([rows]).concatenate(t.shape[2:]))
        return merged

    def _split(self, t: tf.Tensor) -> tf.Tensor:
        """``[batch * beam, ...]`` -> ``[batch, beam, ...]``; other row counts
        are TF1's ValueError."""
        static = tf.get_static_value(self.batch_size)
        expected = tf.TensorShape([static, self.beam_width]).concatenate(t.shape[1:])
        rows = t.shape[0]
        if static is not None and rows is not None and rows != static * self.beam_width:
            raise ValueError(
                f"a state of {rows} rows where batch_size * beam_width = "
                f"{static * self.beam_width} were expected. Perhaps you forgot to create a "
                "zero_state with batch_size=encoder_batch_size * beam_width?"
            )
        split = tf.reshape(t, tf.concat(([self.batch_size, self.beam_width], tf.shape(t)[1:]), 0))
        split.set_shape(expected)
        return split

    def _maybe_split(self, t):
        t = tf.convert_to_tensor(t)
        check_ndims(t)
        return self._split(t) if t.shape.rank >= 1 else t

    def _maybe_merge(self, t):
        return self._merge(t) if t.shape.rank >= 2 else t


def decode_beams(decoder: BeamSearchDecoder, output_time_major: bool = False,
                 maximum_iterations=None, parallel_iterations: int = 32,
                 swap_memory: bool = False):  # fmt: skip
    """TF1's ``dynamic_decode`` of a beam search: ``(FinalBeamSearchDecoderOutput,
    final BeamSearchDecoderState, lengths [batch, beam])``, the decoder
    tracking its own finished beams (they are reordered every step)."""
    finished, inputs, state = decoder.initialize()
    static = tf.get_static_value(decoder.batch_size)
    dtype = nest.flatten(state.cell_state)[0].dtype
    arrays = BeamSearchDecoderOutput(*(
        tf.TensorArray(d, size=0, dynamic_size=True, element_shape=[static, decoder.beam_width])
        for d in (dtype, tf.int32, tf.int32)
    ))  # fmt: skip
    outputs, state, lengths = decode_loop(
        lambda time, inputs, state, _: decoder.step(time, inputs, state), finished, inputs, state,
        arrays, maximum_iterations, parallel_iterations, swap_memory,
    )  # fmt: skip
    outputs = decoder.finalize(outputs, state)
    if not output_time_major:
        outputs = nest.map_structure(_time_major, outputs)
    return outputs, state, lengths
