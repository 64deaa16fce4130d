"""tf.contrib.legacy_seq2seq's tied and multi-task models after
tf1_train.compat.install(): ``embedding_tied_rnn_seq2seq`` held to one RNN
over the source then the target, each of ``one2many_rnn_seq2seq``'s decoders
to ``embedding_rnn_seq2seq``'s on the same arrays.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.test_compat_contrib_rnn import BATCH, TIME, UNITS, _contrib_rnn, _run, _value
from tests.test_compat_contrib_seq2seq import (
    EMBED,
    GRU,
    SYMBOLS,
    TIED,
    _embedding_seq2seq,
    _seq2seq,
)

v1 = tf.compat.v1


def test_the_tied_model_is_one_rnn_over_the_source_then_the_target(installed):
    # One cell and one embedding: decoding from the encoder's final state is
    # the same cell running on over the embedded target, projected throughout.
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    ids = np.random.RandomState(6).randint(0, SYMBOLS, (2 * TIME, BATCH)).astype(np.int32)
    symbols = lambda: [tf.constant(s) for s in ids]  # noqa: E731 (in the graph being built)

    def tied():
        source_target = symbols()
        outs, state = seq2seq.embedding_tied_rnn_seq2seq(
            source_target[:TIME], source_target[TIME:], rnn.GRUCell(UNITS), SYMBOLS, EMBED,
            num_decoder_symbols=3,
        )  # fmt: skip
        return tf.stack(outs), state

    def one_rnn():
        with v1.variable_scope(TIED):
            embedding = v1.get_variable("embedding", [SYMBOLS, EMBED])
            cell = rnn.OutputProjectionWrapper(rnn.GRUCell(UNITS), 3)
            steps = [tf.nn.embedding_lookup(embedding, x) for x in symbols()]
            outs, state = v1.nn.static_rnn(cell, steps, dtype=tf.float32)
        return tf.stack(outs[TIME:]), state

    out, state, grads = _run(tied)
    want_out, want_state, want_grads = _run(one_rnn)
    assert out.shape == (TIME, BATCH, 3)  # the first num_decoder_symbols symbols
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(state, want_state)
    assert len(grads) == len(want_grads) == 7  # embedding, projection, the GRU's four
    for name, grad in grads.items():
        want = want_grads[name.replace("combined_tied_rnn_seq2seq/tied_rnn_seq2seq", "rnn")]
        np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-6)


def _one2many(feed_previous, symbols):
    """one2many_rnn_seq2seq with a GRU decoder per entry of ``symbols``
    (name: symbol count): its outputs by name and its variables' names."""
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    ids = np.random.RandomState(5).randint(0, SYMBOLS, (TIME, BATCH)).astype(np.int32)
    with tf.Graph().as_default():
        feed = feed_previous if isinstance(feed_previous, bool) else tf.constant(feed_previous[0])
        decoder_ids = {k: [tf.constant(s % n) for s in ids] for k, n in symbols.items()}
        cells = {k: rnn.GRUCell(UNITS) for k in symbols}
        outs, states = seq2seq.one2many_rnn_seq2seq(
            [tf.constant(s) for s in ids], decoder_ids, rnn.GRUCell(UNITS), cells, SYMBOLS,
            symbols, EMBED, feed_previous=feed,
        )  # fmt: skip
        assert sorted(states) == sorted(symbols)
        with v1.Session() as sess:
            for var in v1.global_variables():
                var.load(_value(var.op.name, var.shape), sess)
            got = sess.run({k: tf.stack(v) for k, v in outs.items()})
            return got, sorted(v.op.name for v in v1.global_variables())


@pytest.mark.parametrize("feed_previous", [False, True, (True,), (False,)])
def test_one2many_decodes_one_encoding_with_each_named_decoder(installed, feed_previous):
    # Each decoder alone is embedding_rnn_seq2seq's decoder on the same
    # encoder: the same numbers, where the variables hold the same values.
    outs, names = _one2many(feed_previous, {"full": SYMBOLS, "few": 3})
    gru = [f"gru_cell/{n}" for n in GRU]
    want = [f"one2many_rnn_seq2seq/rnn/embedding_wrapper/{n}" for n in ["embedding", *gru]]
    for k in ("full", "few"):
        decoder = f"one2many_rnn_seq2seq/one2many_decoder_{k}/embedding_rnn_decoder"
        proj = ["output_projection_wrapper/" + n for n in ("kernel", "bias", *gru)]
        want += [f"{decoder}/embedding"] + [f"{decoder}/rnn_decoder/{n}" for n in proj]
    assert names == sorted(want)
    flag = feed_previous if isinstance(feed_previous, bool) else feed_previous[0]
    want_full, _ = _embedding_seq2seq("embedding_rnn_seq2seq", flag, lambda ids: ids)
    np.testing.assert_array_equal(outs["full"], want_full)
    assert outs["few"].shape == (TIME, BATCH, 3)
    alone, _ = _one2many(feed_previous, {"few": 3})  # a decoder does not see the others
    np.testing.assert_array_equal(alone["few"], outs["few"])


def test_one2many_refuses_what_tf1_refused(installed):
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    with tf.Graph().as_default():
        x = [tf.zeros([BATCH], tf.int32)]
        with pytest.raises(ValueError, match="keys of dec_cells_dict"):
            seq2seq.one2many_rnn_seq2seq(x, {"a": x}, rnn.GRUCell(2), {"b": rnn.GRUCell(2)},
                                         SYMBOLS, {"a": 3}, EMBED)  # fmt: skip
        with pytest.raises(TypeError, match="enc_cell is not an RNNCell"):
            seq2seq.one2many_rnn_seq2seq(x, {}, object(), {}, SYMBOLS, {}, EMBED)
