"""tf.contrib.legacy_seq2seq after tf1_train.compat.install().

No TensorFlow of today has it. ``rnn_decoder`` is held to TensorFlow's own
``static_rnn`` from the same initial state, ``attention_decoder`` and the
losses to their formulas in float64 NumPy, the embedding seq2seq models to
TF1's variable names and to themselves (a ``feed_previous`` tensor gives the
numbers of the bool, greedy decoding ignores all but the first input) (the
tied and one2many models: tests/test_compat_contrib_seq2seq_models.py);
then a char-rnn style program
(tests/legacy_scripts/char_rnn_style.py) trains and samples through
``python -m tf1_train.compat``.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli, run_legacy_script

from tests.test_compat_contrib_attention import _gru
from tests.test_compat_contrib_rnn import BATCH, DEPTH, TIME, UNITS, _contrib_rnn, _run, _value

v1 = tf.compat.v1
SYMBOLS, EMBED = 7, 3
GRU = ("candidate/bias", "candidate/kernel", "gates/bias", "gates/kernel")
TIED = "embedding_tied_rnn_seq2seq"


def _seq2seq():
    names = {}
    exec("from tensorflow.contrib import legacy_seq2seq", names)  # as a user's module does
    return names["legacy_seq2seq"]


def _step_list():
    x = np.random.RandomState(0).randn(TIME, BATCH, DEPTH).astype(np.float32)
    return [tf.constant(step) for step in x]


def test_rnn_decoder_is_static_rnn_from_the_initial_state(installed):
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    init = np.random.RandomState(1).randn(BATCH, UNITS).astype(np.float32)

    def decoded():
        outs, state = seq2seq.rnn_decoder(_step_list(), tf.constant(init), rnn.GRUCell(UNITS))
        return tf.stack(outs), state

    def static():
        cell = rnn.GRUCell(UNITS)
        outs, state = v1.nn.static_rnn(cell, _step_list(), initial_state=tf.constant(init))
        return tf.stack(outs), state

    out, state, grads = _run(decoded)
    want_out, want_state, want_grads = _run(static)
    assert sorted(grads) == [f"rnn_decoder/gru_cell/{n}" for n in GRU]  # one cell, reused
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(state, want_state)
    for name, grad in grads.items():
        np.testing.assert_array_equal(grad, want_grads[name.replace("rnn_decoder/", "rnn/")])


def test_a_loop_function_feeds_each_output_back_and_the_inputs_after_the_first_are_unread(
    installed,
):
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    seen = []

    def loop(prev, i):
        seen.append((i, v1.get_variable_scope().name, v1.get_variable_scope().reuse))
        return tf.tanh(prev[:, :DEPTH])

    def decode(inputs):
        with tf.Graph().as_default():
            cell = rnn.GRUCell(UNITS)
            init = cell.zero_state(BATCH, tf.float32)
            outs, _ = seq2seq.rnn_decoder(inputs(), init, cell, loop_function=loop)
            with v1.Session() as sess:
                for var in v1.global_variables():
                    var.load(_value(var.op.name, var.shape), sess)
                return sess.run(outs)

    def unread():  # the first step as before, the others anything
        return _step_list()[:1] + [tf.ones([BATCH, DEPTH])] * (TIME - 1)

    fed, other = decode(_step_list), decode(unread)
    np.testing.assert_array_equal(np.stack(fed), np.stack(other))
    assert seen[: TIME - 1] == [(i, "rnn_decoder/loop_function", True) for i in range(1, TIME)]


@pytest.mark.parametrize("over_time, over_batch", [(True, True), (False, True), (True, False)])
def test_sequence_losses_are_tf1s_weighted_cross_entropy(installed, over_time, over_batch):
    seq2seq = _seq2seq()
    rng = np.random.RandomState(4)
    logits = rng.randn(TIME, BATCH, SYMBOLS).astype(np.float32)
    targets = rng.randint(0, SYMBOLS, (TIME, BATCH)).astype(np.int32)
    weights = rng.uniform(0, 1, (TIME, BATCH)).astype(np.float32)
    weights[:, 0] = 0.0  # an example with all-zero weights: 0, not a division by 0
    with tf.Graph().as_default(), v1.Session() as sess:
        args = [[tf.constant(a) for a in arr] for arr in (logits, targets, weights)]
        per_example, total = sess.run([
            seq2seq.sequence_loss_by_example(*args, average_across_timesteps=over_time),
            seq2seq.sequence_loss(*args, average_across_timesteps=over_time,
                                  average_across_batch=over_batch),
        ])  # fmt: skip
    x = logits.astype(np.float64)
    log_softmax = x - x.max(-1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(-1, keepdims=True))
    crossent = -np.take_along_axis(log_softmax, targets[..., None], -1)[..., 0]
    want = (crossent * weights).sum(0)
    if over_time:
        want /= weights.sum(0) + 1e-12
    np.testing.assert_allclose(per_example, want, rtol=1e-6, atol=1e-7)
    assert per_example[0] == 0.0
    np.testing.assert_allclose(total, want.sum() / (BATCH if over_batch else 1), rtol=1e-6)
    with pytest.raises(ValueError, match="Lengths of logits, weights, and targets"):
        seq2seq.sequence_loss_by_example([tf.zeros([1, 2])], [], [])


def _embedding_seq2seq(model, feed_previous, decoder_ids, projection=False):
    """``model``'s outputs and its variables' names, each variable set to
    _value(); ``feed_previous`` a 1-tuple: as a tensor; ``projection``: the
    translate tutorial's ``output_projection`` (w, b) instead of the wrapper."""
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    ids = np.random.RandomState(5).randint(0, SYMBOLS, (TIME, BATCH)).astype(np.int32)
    with tf.Graph().as_default():
        feed = feed_previous if isinstance(feed_previous, bool) else tf.constant(feed_previous[0])
        extra = {}
        if projection:
            w = v1.get_variable("proj_w", [UNITS, SYMBOLS])
            extra["output_projection"] = (w, v1.get_variable("proj_b", [SYMBOLS]))
        sizes = (SYMBOLS, EMBED) if model == TIED else (SYMBOLS, SYMBOLS, EMBED)
        outs, _ = getattr(seq2seq, model)(
            [tf.constant(s) for s in ids], [tf.constant(s) for s in decoder_ids(ids)],
            rnn.GRUCell(UNITS), *sizes, feed_previous=feed, **extra,
        )  # fmt: skip
        with v1.Session() as sess:
            for var in v1.global_variables():
                var.load(_value(var.op.name, var.shape), sess)
            return np.stack(sess.run(outs)), sorted(v.op.name for v in v1.global_variables())


def _tf1_names(model):
    """TF 1.15's variables of ``model`` around a GRUCell (from its source)."""
    gru = [f"gru_cell/{n}" for n in GRU]
    encoder = [f"{model}/rnn/embedding_wrapper/{n}" for n in ["embedding", *gru]]
    decoder = model.replace("_seq2seq", "_decoder")
    proj = ["output_projection_wrapper/" + n for n in ("kernel", "bias", *gru)]
    if model == TIED:  # one embedding, one cell (projected on both sides)
        tied = [f"{model}/combined_tied_rnn_seq2seq/tied_rnn_seq2seq/{n}" for n in proj]
        return sorted([f"{model}/embedding", *tied])
    if model == "embedding_rnn_seq2seq":
        inner = [f"rnn_decoder/{n}" for n in proj]
    else:
        attention = [
            "AttnW_0",
            "AttnV_0",
            "kernel",
            "bias",
            "Attention_0/kernel",
            "Attention_0/bias",
            "AttnOutputProjection/kernel",
            "AttnOutputProjection/bias",
        ]
        inner = [f"attention_decoder/{n}" for n in attention + proj]
    return sorted(encoder + [f"{model}/{decoder}/{n}" for n in ["embedding", *inner]])


@pytest.mark.parametrize("model", ["embedding_rnn_seq2seq", "embedding_attention_seq2seq", TIED])
def test_embedding_seq2seq_models_have_tf1s_names_and_decode_greedily_on_request(installed, model):
    as_given, names = _embedding_seq2seq(model, False, lambda ids: ids)
    assert names == _tf1_names(model)
    assert as_given.shape == (TIME, BATCH, SYMBOLS)
    greedy, _ = _embedding_seq2seq(model, True, lambda ids: ids)
    assert not np.array_equal(greedy[1:], as_given[1:])
    np.testing.assert_array_equal(greedy[0], as_given[0])  # the same first (GO) input
    first_only = lambda ids: np.concatenate([ids[:1], 0 * ids[1:]])  # noqa: E731
    np.testing.assert_array_equal(_embedding_seq2seq(model, True, first_only)[0], greedy)
    for flag, want in ((True, greedy), (False, as_given)):  # a tensor: tf.cond over both
        chosen, tensor_names = _embedding_seq2seq(model, (flag,), lambda ids: ids)
        assert tensor_names == names
        np.testing.assert_array_equal(chosen, want)


def test_greedy_decoding_feeds_back_the_argmax_of_the_output_projection(installed):
    # The translate tutorial's decoder: no wrapper, outputs of the cell's size,
    # each greedy step's symbol argmax(output w + b). Fed those symbols as
    # given inputs, the same decoder must give the greedy outputs again.
    model = "embedding_attention_seq2seq"
    greedy, names = _embedding_seq2seq(model, True, lambda ids: ids, projection=True)
    assert greedy.shape == (TIME, BATCH, UNITS)
    assert not [n for n in names if "output_projection_wrapper" in n]
    w, b = _value("proj_w", [UNITS, SYMBOLS]), _value("proj_b", [SYMBOLS])
    chosen = (greedy[:-1] @ w + b).argmax(-1).astype(np.int32)  # [TIME - 1, BATCH]
    fed, _ = _embedding_seq2seq(
        model, False, lambda ids: np.concatenate([ids[:1], chosen]), projection=True
    )
    np.testing.assert_array_equal(fed, greedy)
    with pytest.raises(ValueError):  # a projection to another number of symbols
        _seq2seq().embedding_rnn_decoder(
            [tf.zeros([BATCH], tf.int32)], tf.zeros([BATCH, UNITS]), _contrib_rnn().GRUCell(UNITS),
            SYMBOLS, EMBED, output_projection=(tf.zeros([UNITS, 3]), tf.zeros([3])),
        )  # fmt: skip


ATTENTION = 4, 5  # attended states: length, size


def _softmax(s):
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _attention_decoder(x, init, states, w, heads, initial_attention):
    """TF 1.15's attention_decoder around a GRUCell in float64 (from its
    source); ``w``: the arrays by name under ``attention_decoder/``."""
    features = [states @ w[f"AttnW_{a}"][0, 0] for a in range(heads)]

    def attend(query):
        reads = []
        for a in range(heads):
            y = query @ w[f"Attention_{a}/kernel"] + w[f"Attention_{a}/bias"]
            p = _softmax((w[f"AttnV_{a}"] * np.tanh(features[a] + y[:, None, :])).sum(-1))
            reads.append((p[:, :, None] * states).sum(1))
        return reads

    attns = attend(init) if initial_attention else [np.zeros((BATCH, ATTENTION[1]))] * heads
    state, outputs = (init,), []
    for step in x.astype(np.float64):
        out, state = _gru(np.concatenate([step, *attns], 1) @ w["kernel"] + w["bias"], state, w)
        attns = attend(state[0])
        proj = "AttnOutputProjection/"
        outputs.append(np.concatenate([out, *attns], 1) @ w[proj + "kernel"] + w[proj + "bias"])
    return np.stack(outputs), state[0]


@pytest.mark.parametrize("heads, initial_attention", [(1, False), (2, True)])
def test_attention_decoder_computes_tf1s_formula_on_tf1s_names(installed, heads, initial_attention):
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    rng = np.random.RandomState(6)
    init = rng.randn(BATCH, UNITS).astype(np.float32)
    states = rng.randn(BATCH, *ATTENTION).astype(np.float32)

    def build():
        outs, state = seq2seq.attention_decoder(
            _step_list(), tf.constant(init), tf.constant(states), rnn.GRUCell(UNITS),
            num_heads=heads, initial_state_attention=initial_attention,
        )  # fmt: skip
        return tf.stack(outs), state

    out, state, grads = _run(build)
    with tf.Graph().as_default():
        build()
        shapes = {v.op.name: v.shape.as_list() for v in v1.global_variables()}
    assert sorted(grads) == sorted(shapes)  # every one takes a gradient
    size = ATTENTION[1]
    scope = "attention_decoder/"
    assert shapes[scope + "kernel"] == [DEPTH + heads * size, DEPTH]
    assert shapes[scope + f"AttnW_{heads - 1}"] == [1, 1, size, size]
    assert shapes[scope + "AttnOutputProjection/kernel"] == [UNITS + heads * size, UNITS]
    w = {n[len(scope) :]: _value(n, s).astype(np.float64) for n, s in shapes.items()}
    want_out, want_state = _attention_decoder(
        np.stack([t.numpy() for t in _step_list()]), init.astype(np.float64),
        states.astype(np.float64), w, heads, initial_attention,
    )  # fmt: skip
    # float32 against float64 over 7 steps: measured 7.2e-7 at most
    np.testing.assert_allclose(out, want_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(state, want_state, rtol=1e-6, atol=1e-6)


def test_buckets_share_one_set_of_variables_and_a_used_cell_is_not_copied(installed):
    rnn, seq2seq = _contrib_rnn(), _seq2seq()
    with tf.Graph().as_default():
        steps = _step_list()
        targets = [tf.zeros([BATCH], tf.int32)] * TIME
        weights = [tf.ones([BATCH])] * TIME
        outputs, losses = seq2seq.model_with_buckets(
            steps, steps, targets, weights, [(3, 2), (TIME, TIME)],
            lambda x, y: seq2seq.basic_rnn_seq2seq(x, y, rnn.GRUCell(SYMBOLS)),
        )  # fmt: skip
        names = sorted(v.op.name for v in v1.global_variables())
        used = rnn.GRUCell(SYMBOLS)
        with pytest.raises(ValueError, match="make a new cell for each call"):
            seq2seq.model_with_buckets(
                steps, steps, targets, weights, [(3, 2), (TIME, TIME)],
                lambda x, y: seq2seq.basic_rnn_seq2seq(x, y, used, scope="again"),
            )  # fmt: skip
    assert [len(o) for o in outputs] == [2, TIME]
    assert [loss.shape.rank for loss in losses] == [0, 0]
    assert names == sorted(
        [f"basic_rnn_seq2seq/rnn/gru_cell/{n}" for n in GRU]
        + [f"basic_rnn_seq2seq/rnn_decoder/gru_cell/{n}" for n in GRU]
    )  # an encoder copy of the cell and the decoder's, for every bucket


def test_a_users_attention_seq2seq_model_trains_on_the_towers_and_its_pin_is_named(tmp_path):
    # tests/user_models/seq2seq_rows.py: embedding_attention_seq2seq over the
    # 2x2 blocks of pixels. 2.39 -> 1.46 after 40 steps (the same in both
    # variable modes).
    out = run_cli([
        "--model=tests.user_models.seq2seq_rows:build", "--num_gpus=2", "--train_steps=40",
        "--optimizer=adam", "--learning_rate=0.01", "--display_every=40",
        f"--train_dir={tmp_path}",
    ])  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    assert summary["final_loss"] < 1.9
    # TF1's EmbeddingWrapper pins the encoder to /cpu:0: tower 1's cell runs there
    [warning] = [ln for ln in out.stdout.splitlines() if ln.startswith("warning: placement")]
    assert "tower 1:" in warning and "contrib's EmbeddingWrapper pins /cpu:0" in warning
    names = tf.train.load_checkpoint(str(tmp_path)).get_variable_to_shape_map()
    model = "embedding_attention_seq2seq/"
    assert names[model + "rnn/embedding_wrapper/embedding"] == [16, 8]
    decoder = model + "embedding_attention_decoder/attention_decoder/"
    assert names[decoder + "AttnOutputProjection/kernel"] == [10 + 16, 10]


SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "char_rnn_style.py")


def test_a_char_rnn_style_program_trains_and_samples_through_python_m_compat(tmp_path):
    values = run_legacy_script(SCRIPT, tmp_path, f"--train_dir={tmp_path}")
    # measured: 3.07 -> 0.04 in 120 steps; the greedy sample from "0" follows the text
    assert float(values["last_loss"]) < float(values["first_loss"]) / 10
    assert values["sample"] == repr("123456789abcdefghij 0123456789")
    assert values["variables"].split() == [
        "rnnlm/embedding",
        "rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/bias",
        "rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/kernel",
        "rnnlm/multi_rnn_cell/cell_1/basic_lstm_cell/bias",
        "rnnlm/multi_rnn_cell/cell_1/basic_lstm_cell/kernel",
        "rnnlm/softmax_b",
        "rnnlm/softmax_w",
    ]
