"""tf1_train.tf2.rnn's twins of the tf.contrib cells tf1_train.compat keeps
(EmbeddingWrapper, ConvLSTMCell and its 1D/2D/3D forms) and
tf1_train.tf2.seq2seq's rnn_decoder, attention_decoder and
embedding_attention_seq2seq, each against the compat cell or function on
the same arrays, with tests/test_tf2_rnn.py's comparison: outputs and
states bit-identical, gradients within its tolerance. Then a user's model
on embedding_attention_seq2seq against its twin through both entry points.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.test_tf2_rnn import (
    BATCH,
    DEPTH,
    STEPS,
    TF1_CELLS,
    UNITS,
    _cell,
    _compare,
)
from tests.test_tf2_rnn_entry_points import train_both_ways
from tf1_train.compat import _contrib_seq2seq, _contrib_seq2seq_attention
from tf1_train.tf2 import rnn, seq2seq
from tf1_train.tf2.layers import glorot_uniform

v1 = tf.compat.v1


@pytest.mark.parametrize("time_known", [True, False], ids=["unrolled", "while_loop"])
def test_an_embedding_wrapper_twin_looks_the_ids_up_in_tf1s_table(time_known):
    classes, size = 9, 3
    ids = np.random.RandomState(2).randint(0, classes, (BATCH, STEPS, 1)).astype(np.int32)

    def tf1_model(inputs, seq):
        cell = TF1_CELLS.EmbeddingWrapper(TF1_CELLS.GRUCell(UNITS), classes, size)
        return v1.nn.dynamic_rnn(cell, inputs, sequence_length=seq, dtype=tf.float32)

    def tf2_model(params):
        return rnn.DynamicRNN(params, rnn.EmbeddingWrapper(rnn.GRUCell(UNITS), classes, size), 1)

    (out,) = _compare(tf1_model, tf2_model, True, time_known=time_known, x=ids)
    assert out.dtype == np.float32 and not out[1, 2:].any()  # zeros past each length


@pytest.mark.parametrize("loop", [False, True], ids=["fed", "loop_function"])
def test_rnn_decoder_twin_steps_as_legacy_seq2seqs(loop):
    # char-rnn's stack under rnn_decoder(scope="rnnlm"); with a loop function
    # only the first input is read, each output making the next input.
    def feed_back(prev, _):
        return tf.tanh(prev[:, :DEPTH])

    def tf1_model(inputs, seq):
        cell = _cell(TF1_CELLS, "stack")
        outs, state = _contrib_seq2seq.rnn_decoder(
            tf.unstack(inputs, axis=1), cell.zero_state(BATCH, tf.float32), cell,
            loop_function=feed_back if loop else None, scope="rnnlm",
        )  # fmt: skip
        return tf.stack(outs, axis=1), state

    def tf2_model(params):
        cell = _cell(rnn, "stack")
        decoder = seq2seq.RNNDecoder(params, cell, DEPTH, scope="rnnlm")

        def run(inputs, seq):
            outs, state = decoder(tf.unstack(inputs, axis=1), cell.zero_state(BATCH, tf.float32),
                                  loop_function=feed_back if loop else None)  # fmt: skip
            return tf.stack(outs, axis=1), state

        return run

    _compare(tf1_model, tf2_model, False)
    # (the losses: tf1_train.compat's legacy_seq2seq runs the twin's functions,
    # held to the float64 formula in tests/test_compat_contrib_seq2seq.py)


CONV = {  # name: (the cell, its arguments)
    "1d": ("Conv1DLSTMCell", dict(input_shape=[6, 2], output_channels=3, kernel_shape=[3])),
    "2d_forget_bias": ("Conv2DLSTMCell", dict(input_shape=[4, 3, 2], output_channels=2,
                                              kernel_shape=[3, 2], forget_bias=0.7)),
    "3d_no_bias": ("ConvLSTMCell", dict(conv_ndims=3, input_shape=[3, 2, 2, 1],
                                        output_channels=2, kernel_shape=[2, 2, 2],
                                        use_bias=False)),
}  # fmt: skip


@pytest.mark.parametrize(
    "case, time_known",
    [("1d", True), ("1d", False), ("2d_forget_bias", True), ("3d_no_bias", True)],
)
def test_conv_lstm_twins_compute_the_contrib_cells_numbers(case, time_known):
    name, kwargs = CONV[case]
    x = np.random.RandomState(3).randn(BATCH, STEPS, *kwargs["input_shape"]).astype(np.float32)

    def tf1_model(inputs, seq):
        cell = getattr(TF1_CELLS, name)(**kwargs)
        return v1.nn.dynamic_rnn(cell, inputs, sequence_length=seq, dtype=tf.float32)

    def tf2_model(params):
        return rnn.DynamicRNN(params, getattr(rnn, name)(**kwargs), kwargs["input_shape"][-1])

    (out,) = _compare(tf1_model, tf2_model, True, time_known=time_known, x=x)
    assert not out[1, 2:].any() and out[1, 1].any()  # zeros past each length


SYMBOLS, EMBED = 7, 3
ATTENDED = np.random.RandomState(4).randn(BATCH, 4, 5).astype(np.float32)  # length 4, size 5


@pytest.mark.parametrize("kind, heads, initial_attention",
                         [("gru", 1, False), ("lstm", 2, True)])  # fmt: skip
def test_attention_decoder_twin_steps_as_legacy_seq2seqs(kind, heads, initial_attention):
    # an LSTM's state is a tuple: the query is its parts concatenated
    loop = (lambda prev, _: tf.tanh(prev[:, :DEPTH])) if heads > 1 else None
    attended = ATTENDED.shape[2]

    def tf1_model(inputs, seq):
        cell = _cell(TF1_CELLS, kind)
        state = cell.zero_state(BATCH, tf.float32)
        outs, state = _contrib_seq2seq_attention.attention_decoder(
            tf.unstack(inputs, axis=1), state, tf.constant(ATTENDED), cell, num_heads=heads,
            loop_function=loop, output_size=DEPTH + 1, initial_state_attention=initial_attention,
        )  # fmt: skip
        return tf.stack(outs, axis=1), state

    def tf2_model(params):
        cell = _cell(rnn, kind)
        decoder = seq2seq.AttentionDecoder(params, cell, DEPTH, attended, DEPTH + 1, heads,
                                           initial_state_attention=initial_attention)  # fmt: skip

        def run(inputs, seq):
            state = cell.zero_state(BATCH, tf.float32)
            outs, state = decoder(tf.unstack(inputs, axis=1), state, tf.constant(ATTENDED), loop)
            return tf.stack(outs, axis=1), state

        return run

    (out,) = _compare(tf1_model, tf2_model, False)[:1]
    assert out.shape == (BATCH, STEPS, DEPTH + 1)


@pytest.mark.parametrize("kind, projection, feed_previous",
                         [("gru", False, False), ("lstm", True, True)])  # fmt: skip
def test_embedding_attention_seq2seq_twin_is_the_translate_tutorials_model(
    kind, projection, feed_previous
):
    # feed_previous with the tutorial's output_projection: greedy decoding
    # through argmax(output w + b), re-embedded; the logits it trains on are
    # output w + b too.
    ids = np.random.RandomState(5).randint(0, SYMBOLS, (BATCH, STEPS)).astype(np.int32)

    def tf1_model(inputs, seq):
        proj = None
        if projection:
            proj = v1.get_variable("proj_w", [UNITS, SYMBOLS]), v1.get_variable("proj_b", [SYMBOLS])
        steps = tf.unstack(inputs, axis=1)
        outs, state = _contrib_seq2seq_attention.embedding_attention_seq2seq(
            steps, steps[:3], _cell(TF1_CELLS, kind), SYMBOLS, SYMBOLS, EMBED, num_heads=2,
            output_projection=proj, feed_previous=feed_previous,
        )  # fmt: skip
        return _logits(outs, proj), state

    def tf2_model(params):
        proj = None
        if projection:
            proj = (params.create("proj_w", [UNITS, SYMBOLS], glorot_uniform),
                    params.create("proj_b", [SYMBOLS], glorot_uniform))  # fmt: skip
        model = seq2seq.EmbeddingAttentionSeq2Seq(
            params, _cell(rnn, kind), SYMBOLS, SYMBOLS, EMBED, num_heads=2,
            output_projection=proj,
        )  # fmt: skip

        def run(inputs, seq):
            steps = tf.unstack(inputs, axis=1)
            outs, state = model(steps, steps[:3], feed_previous=feed_previous)
            return _logits(outs, proj), state

        return run

    (out,) = _compare(tf1_model, tf2_model, False, x=ids)[:1]
    assert out.shape == (BATCH, 3, SYMBOLS)


def _logits(outputs, projection):
    if projection is not None:
        outputs = [tf.matmul(o, projection[0]) + projection[1] for o in outputs]
    return tf.stack(outputs, axis=1)


def test_both_entry_points_train_a_users_attention_seq2seq_model_the_same(tmp_path, installed):
    # tests/user_models/seq2seq_rows.py (the translate tutorial's model over
    # the pixels, through tf1_train.compat) against its twin
    # seq2seq_rows_twin.py, from one checkpoint, on 2 towers.
    from tests.user_models import seq2seq_rows

    losses, names, gap = train_both_ways(
        tmp_path, seq2seq_rows, "build", "tests.user_models.seq2seq_rows_twin:Seq2SeqRows",
        ("embedding_attention_seq2seq/",), "--optimizer=adam", "--learning_rate=0.01",
    )  # fmt: skip
    assert len(losses[0]) == 8 and losses[1] == losses[0]  # as printed
    assert len(names) == 60  # 20 weights, their 2 Adam slots
    # measured: 2.6e-6 on a GRU gate bias of 0.74 (the largest other 6.2e-7):
    # Adam's first steps move a weight by about the learning rate whatever
    # its gradient's size, so sums over time steps in another order show.
    assert gap <= 5e-6
