"""tf1_train.tf2.crf, the TF2 twin of tf.contrib.crf, against tf1_train.compat's
(TF 1.15's ops, held to brute force in tests/test_compat_contrib_crf.py): the
functions on the same arrays, then a BiLSTM-CRF tagger written as
tests/legacy_scripts/bilstm_crf_style.py writes it and its twin on
tf1_train.tf2, the twin restored from the TF1 tagger's checkpoint and both
trained by v1 Adam.
"""

import numpy as np
import pytest
import tensorflow as tf
from conftest import load_random_weights

from tests.test_compat_contrib_crf import LENGTHS, TAGS, _problem
from tests.test_compat_contrib_crf import _crf as _contrib_crf
from tf1_train.config import OptimizerConfig
from tf1_train.tf2 import checkpoint, crf, optim, rnn
from tf1_train.tf2.layers import Params, zeros

v1 = tf.compat.v1


@pytest.mark.parametrize("steps, known", [(4, True), (4, False), (1, True)],
                         ids=["unrolled", "while_loop", "one_step"])  # fmt: skip
def test_the_twin_computes_contribs_numbers(installed, steps, known):
    inputs, tags, transitions = _problem(steps)
    lengths = np.minimum(LENGTHS, steps)
    time = steps if known else None
    with tf.Graph().as_default(), v1.Session() as sess:
        x = v1.placeholder(tf.float32, [len(LENGTHS), time, TAGS])
        y = v1.placeholder(tf.int32, [len(LENGTHS), time])
        with v1.variable_scope("crf"):
            ll, trans = _contrib_crf().crf_log_likelihood(x, y, tf.constant(lengths))
        tags_tf1, best_tf1 = _contrib_crf().crf_decode(x, trans, tf.constant(lengths))
        grads = v1.gradients(tf.reduce_sum(ll), [x, trans])
        grads = [tf.zeros([]) if g is None else g for g in grads]  # one step: no transition
        sess.run(v1.global_variables_initializer())
        trans.load(transitions, sess)
        want = sess.run([ll, tags_tf1, best_tf1, *grads], {x: inputs, y: tags})

    params = Params()
    layer = crf.CRF(params, TAGS, scope="crf")
    assert list(params.by_name) == ["crf/transitions"]  # TF1's name and shape
    layer.transitions.assign(transitions)

    @tf.function(input_signature=[tf.TensorSpec([len(LENGTHS), time, TAGS]),
                                  tf.TensorSpec([len(LENGTHS), time], tf.int32)])  # fmt: skip
    def run(x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ll = layer.log_likelihood(x, y, tf.constant(lengths))
            total = tf.reduce_sum(ll)
        decoded, best = layer.decode(x, tf.constant(lengths))
        grads = tape.gradient(total, [x, layer.transitions])
        return ll, decoded, best, *(tf.zeros([]) if g is None else g for g in grads)

    got = [g.numpy() for g in run(tf.constant(inputs), tf.constant(tags))]
    for name, g, w in zip(["log-likelihood", "tags", "best score"], got, want):
        np.testing.assert_array_equal(g, w, err_msg=name)
    assert got[0][-1] == 0.0  # an empty sequence's, as TF1 masked it
    # Gradients: the steps' contributions summed in another order than TF1's
    # while loop when unrolled.
    for g, w in zip(got[3:], want[3:]):  # measured: within 6e-8
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


VOCAB, MAX_LEN, HIDDEN = 30, 12, 16  # bilstm_crf_style.py's (it imports contrib at the top)
STEPS = 10


class TaggerTwin(tf.Module):
    """The TF2 port of bilstm_crf_style.py's ``tagger`` on tf1_train.tf2,
    under the TF1 graph's names."""

    def __init__(self):
        super().__init__()
        self.params = Params()
        self.embeddings = self.params.create("embeddings", [VOCAB, HIDDEN], zeros)
        self.rnn = rnn.BidirectionalDynamicRNN(
            self.params, rnn.LSTMCell(HIDDEN), rnn.LSTMCell(HIDDEN), HIDDEN
        )
        self.w = self.params.create("W", [2 * HIDDEN, TAGS], zeros)
        self.b = self.params.create("b", [TAGS], zeros)
        self.crf = crf.CRF(self.params, TAGS)

    def logits(self, words, lengths):
        x = tf.nn.embedding_lookup(self.embeddings, words)
        (out_fw, out_bw), _ = self.rnn(x, lengths)
        output = tf.reshape(tf.concat([out_fw, out_bw], axis=-1), [-1, 2 * HIDDEN])
        return tf.reshape(tf.matmul(output, self.w) + self.b, [-1, MAX_LEN, TAGS])

    def loss(self, words, labels, lengths):
        return tf.reduce_mean(-self.crf.log_likelihood(self.logits(words, lengths), labels,
                                                       lengths))  # fmt: skip


def test_a_bilstm_crf_tagger_twin_restores_the_tf1_checkpoint_and_trains_alike(installed, tmp_path):
    from tests.legacy_scripts import bilstm_crf_style as script
    from tests.legacy_scripts.bilstm_crf_style import sentences, tagger

    assert (script.VOCAB, script.MAX_LEN, script.HIDDEN) == (VOCAB, MAX_LEN, HIDDEN)

    rng = np.random.RandomState(0)
    batches = [sentences(rng, 32) for _ in range(STEPS)]
    held_out = sentences(np.random.RandomState(1), 64)
    with tf.Graph().as_default(), v1.Session() as sess:
        words, labels = (v1.placeholder(tf.int32, [None, MAX_LEN]) for _ in range(2))
        lengths = v1.placeholder(tf.int32, [None])
        loss, tags, _, _ = tagger(words, labels, lengths)  # the user's TF1 graph
        train_op = v1.train.AdamOptimizer(0.02).minimize(loss)
        sess.run(v1.global_variables_initializer())
        values = load_random_weights(sess, 5)
        for var in v1.trainable_variables():  # a user's trained weights, smaller
            var.load(0.3 * values[var.op.name], sess)
        names = sorted(v.op.name for v in v1.trainable_variables())
        path = v1.train.Saver(v1.trainable_variables()).save(sess, str(tmp_path / "model.ckpt"))
        want = [sess.run([train_op, loss], dict(zip((words, labels, lengths), b)))[1]
                for b in batches]  # fmt: skip
        want_tags = sess.run(tags, {words: held_out[0], lengths: held_out[2]})
        want_weights = sess.run({v.op.name: v for v in v1.trainable_variables()})

    twin = TaggerTwin()
    assert sorted(twin.params.by_name) == names  # one checkpoint for both
    checkpoint.load_into(path, twin.params.by_name)
    adam = optim.Adam(OptimizerConfig(optimizer="adam", learning_rate=0.02), twin.params.by_name)
    strategy = tf.distribute.get_strategy()

    @tf.function
    def step(words, labels, lengths):
        with tf.GradientTape() as tape:
            loss = twin.loss(words, labels, lengths)
        grads = tape.gradient(loss, list(twin.params.by_name.values()))
        adam.apply(strategy, list(zip(grads, twin.params.by_name)), twin.params.by_name)
        return loss

    got = [float(step(*map(tf.constant, b))) for b in batches]
    got_tags = twin.crf.decode(twin.logits(held_out[0], held_out[2]), held_out[2])[0]
    # The LSTMs' gradients are summed over the steps in another order than
    # TF1's while loop (tests/test_tf2_rnn.py), and Adam divides each by its
    # own scale. Measured: losses within 1.1e-7 relative (8.43 -> 3.80 in 10
    # steps), weights within 1.6e-6; the held-out tags equal.
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got[-1] < 0.5 * want[0]  # it learned
    for name, var in twin.params.by_name.items():
        np.testing.assert_allclose(var.numpy(), want_weights[name], atol=1e-5, err_msg=name)
    np.testing.assert_array_equal(got_tags, want_tags)
