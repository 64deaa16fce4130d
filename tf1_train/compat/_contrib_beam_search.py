"""``tf.contrib.seq2seq``'s beam search: ``BeamSearchDecoder``, its state and
output tuples, ``tile_batch`` and ``gather_tree``, as TF 1.15 defined them.

NMT, GNMT-style translators and the summarizers of 2017-19 decode with it
under ``dynamic_decode``: each step runs the cell on ``batch * beam`` rows,
scores every (beam, word) continuation by its summed log probability (over
GNMT's length penalty, plus a coverage penalty from an ``AttentionWrapper``'s
alignments), keeps the best ``beam_width`` per batch entry and reorders the
cell state to follow them; ``finalize`` walks the parent pointers back with
``gather_tree`` and reorders TensorArrays in the state (alignment history).
It is TF1's ops in TF1's order (the tensor functions and the search step
are tf1_train/tf2/beam_ops.py's, which the TF2 twin steps with too;
_contrib_beam_ops.py holds what only TF1 code meets), so scores, ids and
states agree with TF1's on the same runtime;
tests/test_compat_contrib_dynamic_decode.py holds it to TF 1.15's own
source (tests/goldens/contrib_seq2seq_beam.json).
"""

from __future__ import annotations

import tensorflow as tf
from absl import logging

from tf1_train.compat import rnn_cell
from tf1_train.compat._contrib_attention_wrapper import AttentionWrapperState
from tf1_train.compat._contrib_beam_ops import (
    check_batch_beam,
    check_ndims,
    check_static_batch_beam,
    gather_tree_from_array,
    maybe_tensor_gather_helper,
)
from tf1_train.compat._contrib_decode import Decoder, check_output_layer, projected_size
from tf1_train.tf2.beam_ops import (
    BeamSearchDecoderOutput,
    BeamSearchDecoderState,
    FinalBeamSearchDecoderOutput,
    attention_probs,
    beam_search_step,
    gather_tree,
    initial_log_probs,
    tile_batch,
)

v1 = tf.compat.v1
nest = tf.nest

__all__ = [
    "BeamSearchDecoder",
    "BeamSearchDecoderOutput",
    "BeamSearchDecoderState",
    "FinalBeamSearchDecoderOutput",
    "gather_tree",
    "tile_batch",
]


def _attention_probs(cell_state, coverage_penalty_weight):
    return attention_probs(cell_state, coverage_penalty_weight, AttentionWrapperState)


class BeamSearchDecoder(Decoder):
    """Beam search over a cell whose state has ``batch * beam_width`` rows:
    the initial state (and any attention memory) must be tiled with
    ``tile_batch``, an ``AttentionWrapper``'s ``zero_state`` made with
    ``batch_size=batch * beam_width``."""

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state,
                 beam_width: int, output_layer=None, length_penalty_weight: float = 0.0,
                 coverage_penalty_weight: float = 0.0,
                 reorder_tensor_arrays: bool = True):  # fmt: skip
        rnn_cell._impl.assert_like_rnncell("cell", cell)
        check_output_layer(output_layer)
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        self._beam_width = beam_width
        self._length_penalty_weight = length_penalty_weight
        self._coverage_penalty_weight = coverage_penalty_weight
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: v1.nn.embedding_lookup(embedding, ids)
        self._start_tokens = tf.convert_to_tensor(start_tokens, tf.int32, name="start_tokens")
        if self._start_tokens.shape.rank != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = tf.convert_to_tensor(end_token, tf.int32, name="end_token")
        if self._end_token.shape.rank != 0:
            raise ValueError("end_token must be a scalar")
        self._batch_size = tf.size(start_tokens)
        self._initial_cell_state = nest.map_structure(
            self._maybe_split_batch_beams, initial_state, self._cell.state_size
        )
        self._start_tokens = tf.tile(tf.expand_dims(self._start_tokens, 1), [1, beam_width])
        self._start_inputs = self._embedding_fn(self._start_tokens)
        self._finished = tf.one_hot(
            tf.zeros([self._batch_size], tf.int32), depth=beam_width,
            on_value=False, off_value=True, dtype=tf.bool,
        )  # fmt: skip

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self) -> bool:
        """Beams are reordered every step, finished flags with them."""
        return True

    @property
    def output_size(self) -> BeamSearchDecoderOutput:
        shape = tf.TensorShape([self._beam_width])
        return BeamSearchDecoderOutput(scores=shape, predicted_ids=shape, parent_ids=shape)

    @property
    def output_dtype(self) -> BeamSearchDecoderOutput:
        """The scores take the state's dtype, in the structure of the
        (projected) cell output, as TF1 declared them."""
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        size = projected_size(self._cell.output_size, self._output_layer)
        scores = nest.map_structure(lambda _: dtype, size)
        return BeamSearchDecoderOutput(scores, predicted_ids=tf.int32, parent_ids=tf.int32)

    def initialize(self, name=None):
        """``(finished, start_inputs, state)``: only beam 0 alive (log prob
        0, the others -inf and finished), so step 0 expands it alone."""
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        log_probs = initial_log_probs(self._batch_size, self._beam_width, dtype)
        attention = _attention_probs(self._initial_cell_state, self._coverage_penalty_weight)
        state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state, log_probs=log_probs, finished=self._finished,
            lengths=tf.zeros([self._batch_size, self._beam_width], tf.int64),
            accumulated_attention_probs=() if attention is None else attention,
        )  # fmt: skip
        return self._finished, self._start_inputs, state

    def step(self, time, inputs, state, name=None):
        """Run the cell on the merged ``batch * beam`` rows, then one beam
        search step; the next inputs embed the chosen words (the start
        inputs once every beam has finished)."""
        with tf.name_scope(name or "BeamSearchDecoderStep"):
            inputs = nest.map_structure(lambda x: self._merge_batch_beams(x, x.shape[2:]), inputs)
            cell_state = nest.map_structure(
                self._maybe_merge_batch_beams, state.cell_state, self._cell.state_size
            )
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = nest.map_structure(
                lambda out: self._split_batch_beams(out, out.shape[1:]), cell_outputs
            )
            next_cell_state = nest.map_structure(
                self._maybe_split_batch_beams, next_cell_state, self._cell.state_size
            )
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            output, next_state = beam_search_step(
                cell_outputs, next_cell_state,
                _attention_probs(next_cell_state, self._coverage_penalty_weight), state,
                self._batch_size, self._beam_width, self._end_token,
                self._length_penalty_weight, self._coverage_penalty_weight, self._gather_state,
            )  # fmt: skip
            finished = next_state.finished
            next_inputs = v1.cond(
                tf.reduce_all(finished),
                lambda: self._start_inputs,
                lambda: self._embedding_fn(output.predicted_ids),
            )
        return output, next_state, next_inputs, finished

    def finalize(self, outputs, final_state, sequence_lengths):
        """Whole beams by ``gather_tree`` (to each batch entry's longest beam;
        ``sequence_lengths`` is ignored, the state has the beams' own), and
        the state's TensorArrays put in the beams' order."""
        del sequence_lengths
        max_lengths = tf.cast(tf.reduce_max(final_state.lengths, axis=1), tf.int32)
        predicted_ids = gather_tree(
            outputs.predicted_ids, outputs.parent_ids,
            max_sequence_lengths=max_lengths, end_token=self._end_token,
        )  # fmt: skip
        if self._reorder_tensor_arrays:
            cell_state = nest.map_structure(
                lambda t: self._maybe_sort_array_beams(t, outputs.parent_ids, final_state.lengths),
                final_state.cell_state,
            )
            final_state = final_state._replace(cell_state=cell_state)
        outputs = FinalBeamSearchDecoderOutput(
            beam_search_decoder_output=outputs, predicted_ids=predicted_ids
        )
        return outputs, final_state

    def _gather_state(self, beam_ids, t):
        """A state tensor's rows after the chosen beams (TensorArrays and
        scalars pass)."""
        rows = self._batch_size * self._beam_width
        return maybe_tensor_gather_helper(beam_ids, t, self._batch_size, self._beam_width,
                                          [rows, -1])  # fmt: skip

    def _merge_batch_beams(self, t, s=None) -> tf.Tensor:
        """``[batch, beam] + s`` -> ``[batch * beam] + s``."""
        s = tf.TensorShape(tf.get_static_value(s) if isinstance(s, tf.Tensor) else s)
        static_batch = tf.get_static_value(self._batch_size)
        rows = None if static_batch is None else static_batch * self._beam_width
        shape = tf.concat(([self._batch_size * self._beam_width], tf.shape(t)[2:]), 0)
        reshaped = tf.reshape(t, shape)
        reshaped.set_shape(tf.TensorShape([rows]).concatenate(s))
        return reshaped

    def _split_batch_beams(self, t, s=None) -> tf.Tensor:
        """``[batch * beam] + s`` -> ``[batch, beam] + s``; a state whose rows
        are not ``batch * beam`` (zero_state made with the plain batch) is
        a ValueError, as in TF1."""
        s = tf.TensorShape(tf.get_static_value(s) if isinstance(s, tf.Tensor) else s)
        shape = tf.concat(([self._batch_size, self._beam_width], tf.shape(t)[1:]), 0)
        reshaped = tf.reshape(t, shape)
        static_batch = tf.get_static_value(self._batch_size)
        expected = tf.TensorShape([static_batch, self._beam_width]).concatenate(s)
        if not reshaped.shape.is_compatible_with(expected):
            raise ValueError(
                "Unexpected behavior when reshaping between beam width and batch size.  "
                f"The reshaped tensor has shape: {reshaped.shape}.  We expected it to have "
                f"shape (batch_size, beam_width, depth) == {expected}.  Perhaps you forgot "
                "to create a zero_state with batch_size=encoder_batch_size * beam_width?"
            )
        reshaped.set_shape(expected)
        return reshaped

    def _maybe_split_batch_beams(self, t, s):
        """Split a tensor of rank >= 1; TensorArrays and scalars pass."""
        if isinstance(t, tf.TensorArray):
            return t
        check_ndims(t)
        return self._split_batch_beams(t, s) if t.shape.rank >= 1 else t

    def _maybe_merge_batch_beams(self, t, s):
        """Merge a tensor of rank >= 2; TensorArrays and smaller pass."""
        if isinstance(t, tf.TensorArray):
            return t
        check_ndims(t)
        return self._merge_batch_beams(t, s) if t.shape.rank >= 2 else t

    def _maybe_sort_array_beams(self, t, parent_ids, sequence_length):
        """A TensorArray of the state, stacked and put in the beams' order,
        when its elements can be (else it is returned as is, with TF1's
        warning); anything else passes."""
        if not isinstance(t, tf.TensorArray):
            return t
        shape = t.element_shape
        if shape.rank is None or shape.rank < 1:
            logging.warning(
                "The TensorArray %s in the cell state is not amenable to sorting based on "
                "the beam search result. For a TensorArray to be sorted, its elements shape "
                "must be defined and have at least a rank of 1, but saw shape: %s",
                t.handle.name, shape,
            )  # fmt: skip
            return t
        static_batch = tf.get_static_value(self._batch_size)
        if not check_static_batch_beam(shape, static_batch, self._beam_width):
            return t
        t = t.stack()
        with tf.control_dependencies([check_batch_beam(t, self._batch_size, self._beam_width)]):
            return gather_tree_from_array(t, parent_ids, sequence_length)
