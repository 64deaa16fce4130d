"""tf1_train.tf2.decode and tf1_train.tf2.attention: tf.contrib.seq2seq's
dynamic decoding (BasicDecoder, dynamic_decode with TrainingHelper or
GreedyEmbeddingHelper, sequence_loss) and its attention (Luong, Bahdanau,
AttentionWrapper) for a TF2 twin, against tf1_train.compat's (held to TF
1.15 by tests/test_compat_contrib_dynamic_decode.py) on the same arrays;
then a user's decoder model against its twin through both entry points.
``sequence_loss`` is one function for both (compat's calls the twin's), held
to TF 1.15 for every valid flag combination by that file's goldens.
"""

import itertools

import numpy as np
import pytest
import tensorflow as tf

from tests.test_tf2_rnn import TF1_CELLS, _dense, _flat
from tests.test_tf2_rnn_entry_points import train_both_ways
from tf1_train.compat import _contrib_attention_wrapper as tf1_attention
from tf1_train.compat import _contrib_decode as tf1_decode
from tf1_train.compat import _contrib_decode_helpers as tf1_helpers
from tf1_train.compat._core import Dense
from tf1_train.tf2 import attention, decode, rnn
from tf1_train.tf2.layers import Params, glorot_uniform

v1 = tf.compat.v1
BATCH, UNITS, EMBED, VOCAB, LAYER = 3, 6, 3, 7, 5
RNG = np.random.RandomState(7)
MEMORY = RNG.randn(BATCH, 5, 4).astype(np.float32)  # 5 steps of 4
MEMORY_LENGTHS = np.array([5, 3, 1], np.int32)  # masked: padding reaches no context
INPUTS = RNG.randn(BATCH, 4, EMBED).astype(np.float32)
LENGTHS = np.array([4, 2, 3], np.int32)
TARGETS = RNG.randint(0, VOCAB, (BATCH, 6)).astype(np.int32)
START, END, MAX_ITERATIONS = 1, 3, 6


def _options(mechanism, helper):
    """Luong (scaled, the cell's output out, no attention layer, an unbiased
    projection) on an LSTM, or Bahdanau (normalized, made in the decoder's
    scope, an attention layer, a biased projection named ``dense``) on a
    GRU; greedy decoding imputes with Bahdanau only."""
    return dict(impute=helper == "training" or mechanism == "bahdanau",
                iterations=MAX_ITERATIONS if helper == "greedy" else None)  # fmt: skip


def _tf1_decode(mechanism, helper):
    memory, opts = tf.constant(MEMORY), _options(mechanism, helper)
    if mechanism == "luong":
        scope = None  # dynamic_decode's default, "decoder"; the mechanism at the top
        mech = tf1_attention.LuongAttention(UNITS, memory, MEMORY_LENGTHS, scale=True)
        cell = tf1_attention.AttentionWrapper(TF1_CELLS.LSTMCell(UNITS), mech,
                                              output_attention=False)  # fmt: skip
        layer = Dense(VOCAB, use_bias=False, name="output_projection")
    else:
        with v1.variable_scope("decoder") as scope:
            mech = tf1_attention.BahdanauAttention(UNITS, memory, MEMORY_LENGTHS, normalize=True)
        cell = tf1_attention.AttentionWrapper(TF1_CELLS.GRUCell(UNITS), mech, LAYER)
        layer = Dense(VOCAB)
    if helper == "training":
        feed = tf1_helpers.TrainingHelper(tf.constant(INPUTS), LENGTHS)
    else:
        embedding = v1.get_variable("embedding", [VOCAB, EMBED])
        feed = tf1_helpers.GreedyEmbeddingHelper(embedding, tf.fill([BATCH], START), END)
    decoder = tf1_decode.BasicDecoder(cell, feed, cell.zero_state(BATCH, tf.float32), layer)
    return tf1_decode.dynamic_decode(decoder, impute_finished=opts["impute"], scope=scope,
                                     maximum_iterations=opts["iterations"])  # fmt: skip


def _tf2_decode(params, mechanism, helper):
    """The twin's variables made; returns its decode as a function."""
    opts = _options(mechanism, helper)
    if mechanism == "luong":
        mech = attention.LuongAttention(params, UNITS, MEMORY.shape[2], scale=True)
        cell = attention.AttentionWrapper(rnn.LSTMCell(UNITS), mech, output_attention=False)
        decoder = decode.BasicDecoder(params, cell, EMBED, VOCAB, output_use_bias=False)
    else:
        mech = attention.BahdanauAttention(params, UNITS, MEMORY.shape[2], normalize=True,
                                           scope="decoder")  # fmt: skip
        cell = attention.AttentionWrapper(rnn.GRUCell(UNITS), mech, LAYER)
        decoder = decode.BasicDecoder(params, cell, EMBED, VOCAB, output_name="dense")
    if helper == "greedy":
        embedding = params.create("embedding", [VOCAB, EMBED], glorot_uniform)

    def run():
        mech.setup_memory(tf.constant(MEMORY), MEMORY_LENGTHS)
        if helper == "training":
            feed = decode.TrainingHelper(tf.constant(INPUTS), LENGTHS)
        else:
            feed = decode.GreedyEmbeddingHelper(embedding, tf.fill([BATCH], START), END)
        return decode.dynamic_decode(decoder, feed, cell.zero_state(BATCH, tf.float32),
                                     impute_finished=opts["impute"],
                                     maximum_iterations=opts["iterations"])  # fmt: skip

    return run


def _loss(sequence_loss, outputs, lengths):
    """The decode's sequence_loss against TARGETS, masked by its lengths."""
    steps = tf.shape(outputs.rnn_output)[1]
    weights = tf.sequence_mask(lengths, steps, dtype=tf.float32)
    return sequence_loss(outputs.rnn_output, tf.constant(TARGETS)[:, :steps], weights)


def _tf1_run(mechanism, helper):
    """The compat decode on random weights: name -> value, and its numbers."""
    with tf.Graph().as_default():
        outputs, state, lengths = _tf1_decode(mechanism, helper)
        loss = _loss(tf1_decode.sequence_loss, outputs, lengths)
        weights = v1.trainable_variables()
        grads = _dense(v1.gradients(loss, weights))
        rng = np.random.RandomState(2)
        values = {w.op.name: np.float32(0.5 * rng.randn(*w.shape.as_list())) for w in weights}
        with v1.Session() as sess:
            for w in weights:
                w.load(values[w.op.name], sess)
            fetched = sess.run([outputs, state, lengths, loss, grads])
        return values, [w.op.name for w in weights], fetched


CASES = list(itertools.product(["luong", "bahdanau"], ["training", "greedy"]))


@pytest.mark.parametrize("mechanism, helper", CASES)
def test_decoding_twin_computes_the_compat_decodes_numbers(mechanism, helper):
    # In a tf.function, as the TF2 step runs it: lengths, sample ids, logits,
    # the final AttentionWrapperState and the loss bit-identical; the
    # gradients, summed over the steps in another order: Bahdanau's (on a GRU)
    # measured 3.0e-8 apart at most (on entries up to 0.53), Luong's (on an
    # LSTM) bit-identical.
    # Eagerly, Eigen's tanh instead of oneDNN's fused one: logits measured
    # 6.0e-7 apart (of 2.1).
    values, names, (outputs, state, lengths, loss, grads) = _tf1_run(mechanism, helper)
    params = Params()
    run = _tf2_decode(params, mechanism, helper)
    assert sorted(params.by_name) == sorted(values)  # TF1's names, TF1's shapes
    for name, var in params.by_name.items():
        var.assign(values[name])

    @tf.function(autograph=False)
    def traced():
        with tf.GradientTape() as tape:
            got = run()
            got_loss = _loss(decode.sequence_loss, got[0], got[2])
        return got, got_loss, _dense(tape.gradient(got_loss, [params.by_name[n] for n in names]))

    (got_outputs, got_state, got_lengths), got_loss, got_grads = traced()
    np.testing.assert_array_equal(got_lengths, lengths)
    np.testing.assert_array_equal(got_outputs.sample_id, outputs.sample_id)
    np.testing.assert_array_equal(got_outputs.rnn_output, outputs.rnn_output)
    assert len(_flat(got_state)) == len(_flat(state)) == (6 if mechanism == "luong" else 5)
    for got, want in zip(_flat(got_state), _flat(state)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_loss, loss)
    for got, want, name in zip(got_grads, grads, names):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-7, err_msg=name)
    eager_outputs, _, eager_lengths = run()
    np.testing.assert_array_equal(eager_lengths, lengths)
    np.testing.assert_allclose(eager_outputs.rnn_output, outputs.rnn_output, rtol=0, atol=1e-6)
    if helper == "greedy":  # a sequence ends at END, another runs to the limit
        assert min(lengths) < MAX_ITERATIONS == max(lengths)
    else:
        np.testing.assert_array_equal(lengths, LENGTHS)


def test_both_entry_points_train_a_users_attention_decoder_model_the_same(tmp_path, installed):
    # tests/user_models/decoder_rows.py (dynamic_decode of a GRU in an
    # AttentionWrapper, through tf1_train.compat) against its twin
    # decoder_rows_twin.py, from one checkpoint, on 2 towers (TF1's variables
    # on the parameter server; replicated: tests/test_compat_contrib_dynamic_decode.py).
    from tests.user_models import decoder_rows

    losses, names, gap = train_both_ways(
        tmp_path, decoder_rows, "build", "tests.user_models.decoder_rows_twin:DecoderRows",
        ("decoder/", "encoder/"), "--optimizer=adam", "--learning_rate=0.01",
    )  # fmt: skip
    assert len(losses[0]) == 8 and losses[1] == losses[0]  # as printed
    assert len(names) == 42  # 14 weights, their 2 Adam slots
    wrapper = "decoder/attention_wrapper/"
    expected = {"decoder/memory_layer/kernel", wrapper + "bahdanau_attention/attention_g",
                wrapper + "attention_layer/kernel", "decoder/output_projection/kernel"}  # fmt: skip
    assert expected <= set(names)  # TF 1.15's names
    # measured: 7.3e-7 on a GRU gate kernel entry of 1.2 (the largest other
    # 4.2e-7): the gradients' sums over the steps in another order
    # (test_decoding_twin_computes_the_compat_decodes_numbers); Adam's first
    # steps move a weight by about the learning rate whatever its gradient's size.
    assert gap <= 2e-6


def _wrap(**kwargs):
    """An AttentionWrapper on a Luong mechanism, with TF1's ``kwargs``."""
    mechanism = attention.LuongAttention(Params(), UNITS, 4)
    return attention.AttentionWrapper(rnn.GRUCell(UNITS), kwargs.pop("mechanism", mechanism),
                                      **kwargs)  # fmt: skip


LEFT_OUT = {  # what TF1 took and the twin leaves out: its error names it
    "several attention mechanisms": lambda m: _wrap(mechanism=[m, m]),
    "alignment_history": lambda m: _wrap(alignment_history=True),
    "cell_input_fn": lambda m: _wrap(cell_input_fn=lambda inputs, attention: inputs),
    "initial_cell_state": lambda m: _wrap(initial_cell_state=tf.zeros([BATCH, UNITS])),
    "attention_layer": lambda m: _wrap(attention_layer=object()),
    "attention_fn": lambda m: _wrap(attention_fn=lambda *args: args),
    "custom_key_value_fn": lambda m: attention.BahdanauAttention(
        Params(), UNITS, 4, custom_key_value_fn=lambda keys, values: (keys, values)
    ),
    "decoders other than BasicDecoder": lambda m: decode.dynamic_decode(object(), None, None),
    "helpers other than TrainingHelper": lambda m: decode.dynamic_decode(
        decode.BasicDecoder(Params(), rnn.GRUCell(UNITS), EMBED), object(), None
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", sorted(LEFT_OUT))
def test_what_the_twin_leaves_out_is_refused_in_one_line(what):
    mechanism = attention.LuongAttention(Params(), UNITS, 4)
    with pytest.raises(NotImplementedError, match=f"leaves out .*{what}") as error:
        LEFT_OUT[what](mechanism)
    assert "\n" not in str(error.value)


def test_a_mechanism_without_its_memory_says_so():
    # TF1 took the memory with the mechanism; the twin takes it per batch.
    params = Params()
    cell = _wrap(mechanism=attention.BahdanauAttention(params, UNITS, 4))
    with pytest.raises(ValueError, match="call setup_memory first"):
        cell.zero_state(BATCH, tf.float32)
    with pytest.raises(ValueError, match=r"memory must be \[batch, time, 4\]"):
        cell.mechanism.setup_memory(tf.zeros([BATCH, 5, 3]))
