"""tf.contrib.rnn.LayerNormBasicLSTMCell after tf1_train.compat.install().

No TensorFlow of today has the cell, so it is held to TF 1.15's equations
written out in float64 NumPy, on TF 1.15's variable names; then a user model
on it (tensorflow/nmt's layer_norm_lstm unit) trains on the towers. The
helpers are tests/test_compat_contrib_rnn.py's.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.test_compat_contrib_rnn import DEPTH, UNITS, _contrib_rnn, _run, _steps, _trained, _value

v1 = tf.compat.v1

LN_SCOPE = "rnn/layer_norm_basic_lstm_cell/"
LN_PARTS = ("input", "transform", "forget", "output", "state")
LN_NAMES = ["kernel"] + [f"{p}/{v}" for p in LN_PARTS for v in ("gamma", "beta")]


def _ln_values(names):
    """The arrays _run() gives the cell's variables, by name under its scope."""
    shapes = {"kernel": [DEPTH + UNITS, 4 * UNITS], "bias": [4 * UNITS]}
    return {n: _value(LN_SCOPE + n, shapes.get(n, [UNITS])) for n in names}


def _layer_norm_lstm(x, values, layer_norm=True, forget_bias=1.0):
    """TF 1.15's LayerNormBasicLSTMCell over ``x`` [time, batch, depth] in
    float64 NumPy, from its source: the gates' pre-activations and the new
    cell state normalized over the units (variance epsilon 1e-12), then
    scaled by gamma and shifted by beta. ``values``: name under the cell's
    scope -> array. Returns the outputs [time, batch, units]."""

    def norm(v, scope):
        mean = v.mean(1, keepdims=True)
        var = ((v - mean) ** 2).mean(1, keepdims=True)
        gamma, beta = values[f"{scope}/gamma"], values[f"{scope}/beta"]
        return (v - mean) / np.sqrt(var + 1e-12) * gamma + beta

    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    c = h = np.zeros((x.shape[1], UNITS))
    outputs = []
    for step in x.astype(np.float64):
        out = np.concatenate([step, h], 1) @ values["kernel"]
        if not layer_norm:
            out = out + values["bias"]
        i, j, f, o = np.split(out, 4, axis=1)
        if layer_norm:
            i, j, f, o = (norm(v, s) for v, s in zip((i, j, f, o), LN_PARTS))
        c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
        if layer_norm:
            c = norm(c, "state")
        h = np.tanh(c) * sigmoid(o)
        outputs.append(h)
    return np.stack(outputs)


def _ln_run(**kwargs):
    """(outputs, final state, gradients) of the cell under dynamic_rnn."""
    rnn = _contrib_rnn()
    return _run(lambda: v1.nn.dynamic_rnn(rnn.LayerNormBasicLSTMCell(UNITS, **kwargs), _steps(),
                                          dtype=tf.float32, time_major=True))  # fmt: skip


@pytest.mark.parametrize("kwargs", [{}, {"forget_bias": 0.5}, {"layer_norm": False}],
                         ids=["default", "forget_bias", "no_layer_norm"])  # fmt: skip
def test_layer_norm_lstm_cell_computes_tf1s_formula_on_tf1s_names(installed, kwargs):
    # Held to TF 1.15's equations written out in NumPy (no TensorFlow of
    # today has the cell to compare with), on its variable names.
    out, _, grads = _ln_run(**kwargs)
    names = LN_NAMES if kwargs.get("layer_norm", True) else ["kernel", "bias"]
    assert sorted(grads) == sorted(LN_SCOPE + n for n in names)
    want = _layer_norm_lstm(_steps().numpy(), _ln_values(names), **kwargs)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-6)  # measured: 1.7e-7 at most


def test_layer_norm_lstm_cell_drops_the_candidate_only_when_asked(installed):
    kept = _ln_run(dropout_keep_prob=1.0, dropout_prob_seed=3)[0]
    dropped = _ln_run(dropout_keep_prob=0.5, dropout_prob_seed=3)[0]
    np.testing.assert_allclose(kept, _layer_norm_lstm(_steps().numpy(), _ln_values(LN_NAMES)),
                               rtol=0, atol=1e-6)  # fmt: skip
    assert np.abs(dropped - kept).max() > 0.01


def test_a_users_layer_normalized_lstm_model_trains_on_the_towers(tmp_path):
    # tests/user_models/fused_rnn.py's layer_norm: tensorflow/nmt's
    # layer_norm_lstm unit under dynamic_rnn, recurrent dropout in training.
    shapes = _trained(tmp_path, "layer_norm", "replicated")
    cell = sorted(k for k in shapes if k.startswith("rnn/") and "Adam" not in k)
    assert cell == sorted(LN_SCOPE + n for n in LN_NAMES)  # once each: one copy saved
