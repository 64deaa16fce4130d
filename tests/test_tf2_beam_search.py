"""tf1_train.tf2.beam_search: tf.contrib.seq2seq's BeamSearchDecoder for a TF2
twin, against tf1_train.compat's (held to TF 1.15's own source by
tests/test_compat_contrib_dynamic_decode.py) on the same weights: the same
beams, scores, parents, lengths and final state. The NMT-style program's
TF2 port decodes the TF1 checkpoint to the same beams:
tests/test_compat_contrib_dynamic_decode.py.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.test_tf2_rnn import TF1_CELLS, _flat
from tf1_train.compat import _contrib_attention_wrapper as tf1_attention
from tf1_train.compat import _contrib_beam_search as tf1_beam
from tf1_train.compat import _contrib_decode as tf1_decode
from tf1_train.compat._core import Dense
from tf1_train.tf2 import attention, beam_search, decode, rnn
from tf1_train.tf2.layers import Params, glorot_uniform

v1 = tf.compat.v1
BATCH, UNITS, EMBED, VOCAB, LAYER = 3, 6, 4, 6, 5
RNG = np.random.RandomState(11)
MEMORY = RNG.randn(BATCH, 5, 4).astype(np.float32)
MEMORY_LENGTHS = np.array([5, 2, 4], np.int32)
ENCODED = RNG.randn(BATCH, UNITS).astype(np.float32)  # an encoder's final h (and c)
START, END, MAX_ITERATIONS = 1, 3, 10

# (mechanism, beam width, length penalty, coverage penalty, time major)
CASES = {
    "luong-lstm-penalties": ("luong", 3, 0.6, 0.4, False),
    "bahdanau-gru-time-major": ("bahdanau", 4, 0.0, 0.0, True),
    "plain-lstm": (None, 2, 1.0, 0.0, False),
}


def _tf1_cell(mechanism, memory, lengths):
    if mechanism == "luong":
        mech = tf1_attention.LuongAttention(UNITS, memory, lengths, scale=True)
        return tf1_attention.AttentionWrapper(TF1_CELLS.LSTMCell(UNITS), mech, LAYER)
    if mechanism == "bahdanau":
        mech = tf1_attention.BahdanauAttention(UNITS, memory, lengths, normalize=True)
        return tf1_attention.AttentionWrapper(TF1_CELLS.GRUCell(UNITS), mech)
    return TF1_CELLS.LSTMCell(UNITS)


def _encoded(mechanism):
    """The encoder's state, in the cell's structure, for ``BATCH`` rows."""
    h = tf.constant(ENCODED)
    return h if mechanism == "bahdanau" else (tf.tanh(h), h)


def _tf1_beams(case):
    mechanism, beam, length_penalty, coverage, time_major = CASES[case]
    memory = tf1_beam.tile_batch(tf.constant(MEMORY), beam)
    lengths = tf1_beam.tile_batch(MEMORY_LENGTHS, beam)
    encoded = tf1_beam.tile_batch(_encoded(mechanism), beam)
    if mechanism != "bahdanau":
        encoded = TF1_CELLS.LSTMStateTuple(*encoded)
    cell = _tf1_cell(mechanism, memory, lengths)
    initial = encoded
    if mechanism:
        initial = cell.zero_state(BATCH * beam, tf.float32).clone(cell_state=encoded)
    embedding = v1.get_variable("embedding", [VOCAB, EMBED])
    decoder = tf1_beam.BeamSearchDecoder(
        cell, embedding, tf.fill([BATCH], START), END, initial, beam,
        output_layer=Dense(VOCAB, use_bias=mechanism is None, name="output_projection"),
        length_penalty_weight=length_penalty, coverage_penalty_weight=coverage,
    )  # fmt: skip
    return tf1_decode.dynamic_decode(decoder, output_time_major=time_major,
                                     maximum_iterations=MAX_ITERATIONS)  # fmt: skip


def _tf1_run(case):
    with tf.Graph().as_default():
        fetches = _tf1_beams(case)
        weights = v1.trainable_variables()
        rng = np.random.RandomState(5)
        values = {w.op.name: np.float32(0.7 * rng.randn(*w.shape.as_list())) for w in weights}
        with v1.Session() as sess:
            for w in weights:
                w.load(values[w.op.name], sess)
            return values, sess.run(fetches)


def _tf2_beams(params, case):
    """The twin's variables made; returns its beam search as a function."""
    mechanism, beam, length_penalty, coverage, time_major = CASES[case]
    cell, mech = rnn.LSTMCell(UNITS), None
    if mechanism == "luong":
        mech = attention.LuongAttention(params, UNITS, MEMORY.shape[2], scale=True)
        cell = attention.AttentionWrapper(cell, mech, LAYER)
    elif mechanism == "bahdanau":
        mech = attention.BahdanauAttention(params, UNITS, MEMORY.shape[2], normalize=True)
        cell = attention.AttentionWrapper(rnn.GRUCell(UNITS), mech)
    embedding = params.create("embedding", [VOCAB, EMBED], glorot_uniform)
    projection = decode.BasicDecoder(params, cell, EMBED, VOCAB,
                                     output_use_bias=mechanism is None)  # fmt: skip

    def run():
        encoded = _encoded(mechanism)  # the twin's cells keep a tuple, a GRU's of one
        encoded = encoded if isinstance(encoded, tuple) else (encoded,)
        encoded = beam_search.tile_batch(encoded, beam)
        initial = encoded
        if mech is not None:
            mech.setup_memory(beam_search.tile_batch(tf.constant(MEMORY), beam),
                              beam_search.tile_batch(MEMORY_LENGTHS, beam))  # fmt: skip
            initial = cell.zero_state(BATCH * beam, tf.float32).clone(cell_state=encoded)
        decoder = beam_search.BeamSearchDecoder(
            projection, embedding, tf.fill([BATCH], START), END, initial, beam,
            length_penalty_weight=length_penalty, coverage_penalty_weight=coverage,
        )  # fmt: skip
        return decode.dynamic_decode(decoder, output_time_major=time_major,
                                     maximum_iterations=MAX_ITERATIONS)  # fmt: skip

    return run


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_beam_search_twin_finds_the_compat_decoders_beams(case):
    # In a tf.function, as a TF2 inference step runs it: every output and the
    # final state bit-identical (the search step is one function for both;
    # the cells and attention are the twin's, bit-identical in a tf.function).
    values, (outputs, state, lengths) = _tf1_run(case)
    params = Params()
    run = _tf2_beams(params, case)
    assert sorted(params.by_name) == sorted(values)  # TF1's names, TF1's shapes
    for name, var in params.by_name.items():
        var.assign(values[name])
    got_outputs, got_state, got_lengths = tf.function(run, autograph=False)()
    np.testing.assert_array_equal(got_outputs.predicted_ids, outputs.predicted_ids)
    for got, want in zip(got_outputs.beam_search_decoder_output,
                         outputs.beam_search_decoder_output):  # fmt: skip
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_lengths, lengths)
    assert len(_flat(got_state)) == len(_flat(state))
    for got, want in zip(_flat(got_state), _flat(state)):
        np.testing.assert_array_equal(got, want)
    # the search did search: beams parted from their parents and ended at
    # different steps, some at END before the limit
    parents = outputs.beam_search_decoder_output.parent_ids  # beams on the last axis
    assert (parents != np.arange(parents.shape[-1])).any()
    assert lengths.min() < MAX_ITERATIONS and len(np.unique(lengths)) > 1
    if case == "plain-lstm":  # eagerly (Eigen's kernels, not oneDNN's): the same beams
        eager_outputs, _, eager_lengths = run()
        np.testing.assert_array_equal(eager_outputs.predicted_ids, outputs.predicted_ids)
        np.testing.assert_array_equal(eager_lengths, lengths)


def test_a_state_not_tiled_for_the_beams_says_what_to_do():
    # TF1's hint: the zero state made with the encoder's batch, not batch * beam.
    params = Params()
    cell = rnn.GRUCell(UNITS)
    projection = decode.BasicDecoder(params, cell, EMBED, VOCAB)
    with pytest.raises(ValueError, match=r"forgot to create a zero_state with batch_size="):
        beam_search.BeamSearchDecoder(projection, tf.zeros([VOCAB, EMBED]),
                                      tf.fill([BATCH], START), END,
                                      cell.zero_state(BATCH, tf.float32), 3)  # fmt: skip


def test_what_the_beam_twin_leaves_out_is_refused_in_one_line():
    params = Params()
    cell = rnn.GRUCell(UNITS)
    projection = decode.BasicDecoder(params, cell, EMBED, VOCAB)
    decoder = beam_search.BeamSearchDecoder(projection, tf.zeros([VOCAB, EMBED]),
                                            tf.fill([BATCH], START), END,
                                            cell.zero_state(BATCH * 2, tf.float32), 2)  # fmt: skip
    with pytest.raises(NotImplementedError, match="leaves out impute_finished") as error:
        decode.dynamic_decode(decoder, impute_finished=True)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="takes no helper or initial_state"):
        decode.dynamic_decode(decoder, None, cell.zero_state(BATCH * 2, tf.float32))
    with pytest.raises(ValueError, match="no cell is attentional"):
        beam_search.BeamSearchDecoder(projection, tf.zeros([VOCAB, EMBED]),
                                      tf.fill([BATCH], START), END,
                                      cell.zero_state(BATCH * 2, tf.float32), 2,
                                      coverage_penalty_weight=0.5).initialize()  # fmt: skip
