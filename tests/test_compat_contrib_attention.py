"""tf.contrib.rnn.AttentionCellWrapper after tf1_train.compat.install().

No TensorFlow of today has the wrapper, so it is held to TF 1.15's
equations written out in float64 NumPy, on TF 1.15's variable names (around
an LSTMCell with a tuple state, and around a GRUCell with a concatenated one
and its own attention sizes); then a user model on it (Magenta's attention
RNN) trains on the towers. The helpers are tests/test_compat_contrib_rnn.py's.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.test_compat_contrib_rnn import (
    BATCH,
    DEPTH,
    UNITS,
    _contrib_rnn,
    _run,
    _steps,
    _trained,
    _value,
)
from tf1_train.tf2 import rnn as tf2_rnn

v1 = tf.compat.v1
SCOPE = "rnn/attention_cell_wrapper/"
WINDOW = 3


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _lstm(x, state, w):
    c, h = state
    i, j, f, o = np.split(
        np.concatenate([x, h], 1) @ w["lstm_cell/kernel"] + w["lstm_cell/bias"], 4, 1
    )
    c = c * _sigmoid(f + 1.0) + _sigmoid(i) * np.tanh(j)
    h = _sigmoid(o) * np.tanh(c)
    return h, (c, h)


def _gru(x, state, w):
    (h,) = state
    gates = _sigmoid(
        np.concatenate([x, h], 1) @ w["gru_cell/gates/kernel"] + w["gru_cell/gates/bias"]
    )
    r, u = np.split(gates, 2, 1)
    cand = np.tanh(
        np.concatenate([x, r * h], 1) @ w["gru_cell/candidate/kernel"]
        + w["gru_cell/candidate/bias"]
    )
    h = u * h + (1 - u) * cand
    return h, (h,)


def _attention_rnn(x, w, cell, cell_state, attn_size, vec_size):
    """TF 1.15's AttentionCellWrapper.call over ``x`` [time, batch, depth]
    (float64, from its source): the input projected with the last attention
    read, the cell, attention over the window with the cell's new state
    (flattened) as query, the output projection, the window slid by it.
    ``w``: the arrays by name under the wrapper's scope."""
    state, attns = cell_state, np.zeros((BATCH, attn_size))
    window = np.zeros((BATCH, WINDOW, attn_size))
    outputs = []
    for step in x.astype(np.float64):
        inputs = np.concatenate([step, attns], 1) @ w["kernel"] + w["bias"]
        out, state = cell(inputs, state, w)
        query = np.concatenate(state, 1)
        features = window @ w["attention/attn_w"][0, 0]  # the 1x1 convolution
        y = query @ w["attention/kernel"] + w["attention/bias"]
        scores = (w["attention/attn_v"] * np.tanh(features + y[:, None, :])).sum(-1)
        a = np.exp(scores - scores.max(1, keepdims=True))
        a /= a.sum(1, keepdims=True)
        attns = (a[:, :, None] * window).sum(1)
        proj = "attn_output_projection/"
        output = np.concatenate([out, attns], 1) @ w[proj + "kernel"] + w[proj + "bias"]
        window = np.concatenate([window[:, 1:], output[:, None, :]], 1)
        outputs.append(output)
    return np.stack(outputs), np.concatenate([*state, attns, window.reshape(BATCH, -1)], 1)


CASES = {
    # name: (cell, its NumPy step, its zero state, wrapper arguments, attn size, vector size)
    "lstm_tuple": ("LSTMCell", _lstm, 2, {"state_is_tuple": True}, UNITS, UNITS),
    "gru_concatenated": ("GRUCell", _gru, 1, {"state_is_tuple": False, "attn_size": 4,
                                              "attn_vec_size": 7}, 4, 7),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_attention_wrapper_computes_tf1s_formula_on_tf1s_names(installed, case):
    cell_name, step, parts, kwargs, attn_size, vec_size = CASES[case]
    rnn = _contrib_rnn()

    def build():
        wrapper = rnn.AttentionCellWrapper(getattr(rnn, cell_name)(UNITS), WINDOW, **kwargs)
        outputs, state = v1.nn.dynamic_rnn(wrapper, _steps(), dtype=tf.float32, time_major=True)
        return outputs, tf.concat(tf.nest.flatten(state), 1)

    out, state, grads = _run(build)
    with tf.Graph().as_default():  # the names and shapes TF 1.15 made
        build()
        shapes = {v.op.name[len(SCOPE) :]: v.shape.as_list() for v in v1.global_variables()}
    assert sorted(grads) == sorted(SCOPE + n for n in shapes)  # every one takes a gradient
    assert shapes["kernel"] == [DEPTH + attn_size, DEPTH]
    assert shapes["attention/attn_w"] == [1, 1, attn_size, vec_size]
    assert shapes["attn_output_projection/kernel"] == [UNITS + attn_size, attn_size]
    values = {n: _value(SCOPE + n, s).astype(np.float64) for n, s in shapes.items()}
    zero = tuple(np.zeros((BATCH, UNITS)) for _ in range(parts))
    want_out, want_state = _attention_rnn(_steps().numpy(), values, step, zero, attn_size,
                                          vec_size)  # fmt: skip
    # float32 against float64 over 7 steps: measured 1.1e-6 at most (5.6e-7 relative)
    np.testing.assert_allclose(out, want_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(state, want_state, rtol=1e-6, atol=1e-6)


def test_attention_wrapper_refuses_what_tf1_refused(installed):
    rnn = _contrib_rnn()
    with pytest.raises(ValueError, match="attn_length should be greater than zero"):
        rnn.AttentionCellWrapper(rnn.GRUCell(4), 0)
    with pytest.raises(ValueError, match="state_is_tuple is not set"):
        rnn.AttentionCellWrapper(rnn.LSTMCell(4), 2, state_is_tuple=False)
    # and the TF2 twin's, the same way
    with pytest.raises(ValueError, match="attn_length should be greater than zero"):
        tf2_rnn.AttentionCellWrapper(tf2_rnn.GRUCell(4), 0)
    with pytest.raises(ValueError, match="state_is_tuple is not set"):
        tf2_rnn.AttentionCellWrapper(tf2_rnn.LSTMCell(4), 2, state_is_tuple=False)


def test_a_users_attention_rnn_model_trains_on_the_towers(tmp_path):
    # tests/user_models/fused_rnn.py's attention: Magenta's attention RNN
    # (the first layer's cell wrapped, dropout wrappers, MultiRNNCell).
    # It learns slower than the fused models, and its dropout masks vary run to
    # run: final losses 1.41-1.52 measured in 5 runs, so the bar is 1.8.
    shapes = _trained(tmp_path, "attention", "parameter_server", max_loss=1.8)
    wrapper = "rnn/multi_rnn_cell/cell_0/attention_cell_wrapper/"
    cell = sorted(k[len(wrapper) :] for k in shapes if k.startswith(wrapper) and "Adam" not in k)
    assert cell == sorted(["kernel", "bias", "basic_lstm_cell/kernel", "basic_lstm_cell/bias",
                           "attention/attn_w", "attention/attn_v", "attention/kernel",
                           "attention/bias", "attn_output_projection/kernel",
                           "attn_output_projection/bias"])  # fmt: skip
