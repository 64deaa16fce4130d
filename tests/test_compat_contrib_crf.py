"""tf.contrib.crf after tf1_train.compat.install().

No TensorFlow of today has it (TensorFlow Addons' copy is unmaintained). It
is held to brute force in float64 NumPy: every tag sequence of a few short
ones enumerated, the log partition function their scores' logsumexp and the
best one Viterbi's answer; then a BiLSTM-CRF tagger written as TF1 code
(tests/legacy_scripts/bilstm_crf_style.py) trains through ``python -m
tf1_train.compat``.
"""

import itertools
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script

v1 = tf.compat.v1
TAGS = 3
LENGTHS = np.array([4, 2, 1, 0], np.int32)  # full, short, one, empty


def _crf():
    names = {}
    exec("from tensorflow.contrib import crf", names)  # as a user's module does
    return names["crf"]


def _problem(steps, seed=0):
    rng = np.random.RandomState(seed)
    inputs = rng.randn(len(LENGTHS), steps, TAGS).astype(np.float32)
    tags = rng.randint(0, TAGS, (len(LENGTHS), steps)).astype(np.int32)
    return inputs, tags, rng.randn(TAGS, TAGS).astype(np.float32)


def _score(x, tags, transitions, n):
    """One sequence's score within its length n, float64."""
    unary = sum(x[t, tags[t]] for t in range(n))
    return unary + sum(transitions[tags[t - 1], tags[t]] for t in range(1, n))


def _brute_force(inputs, transitions, n):
    """(log partition, best sequence, its score) over every sequence of length n."""
    x, trans = inputs.astype(np.float64), transitions.astype(np.float64)
    scored = [(_score(x, seq, trans, n), seq) for seq in itertools.product(range(TAGS), repeat=n)]
    values = np.array([s for s, _ in scored])
    best = max(scored)
    return np.log(np.exp(values - values.max()).sum()) + values.max(), list(best[1]), best[0]


@pytest.mark.parametrize("steps, known", [(4, True), (4, False), (1, True)])
def test_log_likelihood_and_decoding_are_the_brute_force_answers(installed, steps, known):
    crf = _crf()
    inputs, tags, transitions = _problem(steps)
    lengths = np.minimum(LENGTHS, steps)
    with tf.Graph().as_default(), v1.Session() as sess:
        # unknown: padded batches, the length-1 shortcut chosen by tf.cond (as
        # TF1 code fed them: both placeholders of unknown length)
        time = steps if known else None
        x = v1.placeholder(tf.float32, [None, time, TAGS])
        y = v1.placeholder(tf.int32, [None, time])
        trans = tf.constant(transitions)
        ll, same = crf.crf_log_likelihood(x, y, tf.constant(lengths), trans)
        decoded, best = crf.crf_decode(x, trans, tf.constant(lengths))
        got_ll, got_tags, got_best = sess.run([ll, decoded, best], {x: inputs, y: tags})
    assert same is trans
    for i, n in enumerate(lengths):
        if n == 0:  # TF1 masks an empty sequence's score and normalizer to 0
            assert got_ll[i] == 0.0
            continue
        log_z, best_tags, best_score = _brute_force(inputs[i], transitions, n)
        want = _score(inputs[i].astype(np.float64), tags[i], transitions, n) - log_z
        np.testing.assert_allclose(got_ll[i], want, rtol=1e-5, atol=1e-5)
        assert list(got_tags[i, :n]) == best_tags
        np.testing.assert_allclose(got_best[i], best_score, rtol=1e-5)
        viterbi, score = crf.viterbi_decode(inputs[i, :n], transitions)
        assert [int(t) for t in viterbi] == best_tags
        np.testing.assert_allclose(score, best_score, rtol=1e-5)


def test_the_transitions_variable_is_made_in_the_scope_and_learns(installed):
    crf = _crf()
    inputs, tags, _ = _problem(4, seed=1)
    with tf.Graph().as_default(), v1.Session() as sess:
        with v1.variable_scope("crf"):
            ll, trans = crf.crf_log_likelihood(
                tf.constant(inputs), tf.constant(tags), tf.constant(LENGTHS)
            )
        assert [v.op.name for v in v1.trainable_variables()] == ["crf/transitions"]
        assert trans.shape.as_list() == [TAGS, TAGS]
        loss = -tf.reduce_mean(ll)
        step = v1.train.GradientDescentOptimizer(0.5).minimize(loss)
        sess.run(v1.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(20):
            sess.run(step)
        assert sess.run(loss) < first - 0.1  # the gradient flows through the forward algorithm


def test_multitag_scores_of_one_hot_bitmaps_are_the_sequence_scores(installed):
    crf = _crf()
    inputs, tags, transitions = _problem(4, seed=2)
    lengths = np.array([4, 3, 2, 1], np.int32)
    with tf.Graph().as_default(), v1.Session() as sess:
        args = tf.constant(inputs), tf.constant(tags), tf.constant(lengths)
        bitmap = tf.cast(tf.one_hot(tags, TAGS), tf.bool)
        one, many = sess.run([
            crf.crf_sequence_score(*args, tf.constant(transitions)),
            crf.crf_multitag_sequence_score(args[0], bitmap, args[2], tf.constant(transitions)),
        ])  # fmt: skip
    np.testing.assert_allclose(many, one, rtol=1e-5, atol=1e-5)


SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "bilstm_crf_style.py")


def test_a_bilstm_crf_tagger_trains_through_python_m_compat(tmp_path):
    values = run_legacy_script(SCRIPT, tmp_path)
    # measured: 11.19 -> 0.0013 in 150 steps, held-out accuracy 1.0
    assert float(values["last_loss"]) < float(values["first_loss"]) / 4
    assert float(values["accuracy"]) > 0.95  # crf_decode on held-out sentences
    assert values["agree"] == "True"  # viterbi_decode in NumPy gives crf_decode's tags
