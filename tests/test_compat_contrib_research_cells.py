"""tf.contrib.rnn's research cells after tf1_train.compat.install():
NASCell, UGRNNCell, IntersectionRNNCell, IndRNNCell, IndyGRUCell and
IndyLSTMCell.

No TensorFlow of today has them, so each is held to TF 1.15's equations
written out in float64 NumPy from its source, on TF 1.15's variable names
and initializers; then a user model stacking two of them trains on the
towers. The helpers are tests/test_compat_contrib_rnn.py's.
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

v1 = tf.compat.v1


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _relu(v):
    return np.maximum(v, 0)


def _values(scope, shapes):
    """The arrays _run() gives the cell's variables: {name under the cell's
    scope: float64 array}."""
    return {n: _value(f"{scope}/{n}", s).astype(np.float64) for n, s in shapes.items()}


def _unroll(step, state, x):
    """``step(x_t, state) -> (output, state)`` over ``x`` [time, batch,
    depth] in float64: (outputs [time, batch, units], final state)."""
    outputs = []
    for x_t in x.astype(np.float64):
        out, state = step(x_t, state)
        outputs.append(out)
    return np.stack(outputs), state


def _nas(w, num_proj=None, use_bias=False):
    def step(x, state):
        c, m_prev = state
        m = m_prev @ w["recurrent_kernel"] + (w["bias"] if use_bias else 0)
        xs, ms = np.split(x @ w["kernel"], 8, 1), np.split(m, 8, 1)
        l1 = [
            _sigmoid(xs[0] + ms[0]), _relu(xs[1] + ms[1]), _sigmoid(xs[2] + ms[2]),
            _relu(xs[3] * ms[3]), np.tanh(xs[4] + ms[4]), _sigmoid(xs[5] + ms[5]),
            np.tanh(xs[6] + ms[6]), _sigmoid(xs[7] + ms[7]),
        ]  # fmt: skip
        l2 = [np.tanh(l1[0] * l1[1]), np.tanh(l1[2] + l1[3]), np.tanh(l1[4] * l1[5]),
              _sigmoid(l1[6] + l1[7])]  # fmt: skip
        new_c = np.tanh(l2[0] + c) * l2[1]
        new_m = np.tanh(new_c * np.tanh(l2[2] + l2[3]))
        if num_proj:
            new_m = new_m @ w["projection_weights"]
        return new_m, (new_c, new_m)

    return step


def _ugrnn(w, forget_bias=1.0):
    def step(x, h):
        g, c = np.split(np.concatenate([x, h], 1) @ w["kernel"] + w["bias"], 2, 1)
        g = _sigmoid(g + forget_bias)
        h = g * h + (1 - g) * np.tanh(c)
        return h, h

    return step


def _intersection(w, prefix=""):
    def step(x, h):
        if f"{prefix}in_projection/kernel" in w:
            x = x @ w[f"{prefix}in_projection/kernel"] + w[f"{prefix}in_projection/bias"]
        m = np.concatenate([x, h], 1) @ w[f"{prefix}kernel"] + w[f"{prefix}bias"]
        gh, hh, gy, y = np.split(m, 4, 1)
        gh, gy = _sigmoid(gh + 1.0), _sigmoid(gy + 1.0)
        return gy * x + (1 - gy) * _relu(y), gh * h + (1 - gh) * np.tanh(hh)

    return step


def _ind(w, activation=np.tanh):
    def step(x, h):
        h = activation(x @ w["kernel_w"] + h * w["kernel_u"] + w["bias"])
        return h, h

    return step


def _indy_gru(w):
    def step(x, h):
        gates = x @ w["gates/kernel_w"] + np.tile(h, [1, 2]) * w["gates/kernel_u"]
        r, z = np.split(_sigmoid(gates + w["gates/bias"]), 2, 1)
        c = np.tanh(x @ w["candidate/kernel"] + r * h * w["candidate/kernel_u"]
                    + w["candidate/bias"])  # fmt: skip
        h = z * h + (1 - z) * c
        return h, h

    return step


def _indy_lstm(w, forget_bias=1.0):
    def step(x, state):
        c, h = state
        gates = x @ w["kernel_w"] + np.tile(h, [1, 4]) * w["kernel_u"] + w["bias"]
        i, j, f, o = np.split(gates, 4, 1)
        c = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
        h = np.tanh(c) * _sigmoid(o)
        return h, (c, h)

    return step


N, P = UNITS, 3  # units, NASCell's projection
ZEROS = np.zeros((BATCH, N))
NAS = {"recurrent_kernel": [N, 8 * N], "kernel": [DEPTH, 8 * N]}
NAS_PROJ = {"recurrent_kernel": [P, 8 * N], "kernel": [DEPTH, 8 * N], "bias": [8 * N],
            "projection_weights": [N, P]}  # fmt: skip
UGRNN = {"kernel": [DEPTH + N, 2 * N], "bias": [2 * N]}
INTERSECTION = {"in_projection/kernel": [DEPTH, N], "in_projection/bias": [N],
                "kernel": [2 * N, 4 * N], "bias": [4 * N]}  # fmt: skip
IND = {"kernel_w": [DEPTH, N], "kernel_u": [1, N], "bias": [N]}
INDY_GRU = {"gates/kernel_w": [DEPTH, 2 * N], "gates/kernel_u": [1, 2 * N],
            "gates/bias": [2 * N], "candidate/kernel": [DEPTH, N],
            "candidate/kernel_u": [1, N], "candidate/bias": [N]}  # fmt: skip
INDY_LSTM = {"kernel_w": [DEPTH, 4 * N], "kernel_u": [1, 4 * N], "bias": [4 * N]}
# name: (cell class, kwargs, its scope, {variable: shape} in TF1, the NumPy step, initial state)
CASES = {
    "nas": ("NASCell", {}, "nas_cell", NAS, _nas, (ZEROS, ZEROS)),
    "nas_bias_proj": ("NASCell", {"num_proj": P, "use_bias": True}, "nas_cell", NAS_PROJ,
                      lambda w: _nas(w, P, True), (ZEROS, np.zeros((BATCH, P)))),
    "ugrnn": ("UGRNNCell", {}, "ugrnn_cell", UGRNN, _ugrnn, ZEROS),
    "ugrnn_forget_bias": ("UGRNNCell", {"forget_bias": 0.25}, "ugrnn_cell", UGRNN,
                          lambda w: _ugrnn(w, 0.25), ZEROS),
    "intersection": ("IntersectionRNNCell", {"num_in_proj": N}, "intersection_rnn_cell",
                     INTERSECTION, _intersection, ZEROS),
    "ind": ("IndRNNCell", {}, "ind_rnn_cell", IND, _ind, ZEROS),
    "ind_relu": ("IndRNNCell", {"activation": tf.nn.relu}, "ind_rnn_cell", IND,
                 lambda w: _ind(w, _relu), ZEROS),
    "indy_gru": ("IndyGRUCell", {}, "indy_gru_cell", INDY_GRU, _indy_gru, ZEROS),
    "indy_lstm": ("IndyLSTMCell", {"forget_bias": 0.0}, "indy_lstm_cell", INDY_LSTM,
                  lambda w: _indy_lstm(w, 0.0), (ZEROS, ZEROS)),
}  # fmt: skip


def _cell(case: str):
    name, kwargs = CASES[case][:2]
    return getattr(_contrib_rnn(), name)(N, **kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_research_cells_compute_tf1s_equations_on_tf1s_names(installed, case):
    _, _, scope, shapes, make_step, state0 = CASES[case]
    out, state, grads = _run(
        lambda: v1.nn.dynamic_rnn(_cell(case), _steps(), dtype=tf.float32, time_major=True)
    )
    assert sorted(grads) == sorted(f"rnn/{scope}/{n}" for n in shapes)  # each one trains
    want, want_state = _unroll(make_step(_values(scope, shapes)), state0, _steps().numpy())
    np.testing.assert_allclose(out, want, rtol=0, atol=2e-6)
    for got, expected in zip(tf.nest.flatten(state), tf.nest.flatten(want_state)):
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-6)


def test_a_stack_of_intersection_cells_passes_depth_through_the_gate(installed):
    # The paper's deep +RNN: the first layer projects its input to the
    # units, the next takes the first's outputs as they are.
    rnn = _contrib_rnn()
    stack = lambda: rnn.MultiRNNCell(  # noqa: E731
        [rnn.IntersectionRNNCell(N, num_in_proj=N), rnn.IntersectionRNNCell(N)]
    )
    out, _, grads = _run(lambda: v1.nn.dynamic_rnn(stack(), _steps(), dtype=tf.float32,
                                                   time_major=True))  # fmt: skip
    first = "rnn/multi_rnn_cell/cell_0/intersection_rnn_cell/"
    second = "rnn/multi_rnn_cell/cell_1/intersection_rnn_cell/"
    assert sorted(grads) == sorted(
        [first + n for n in ("in_projection/kernel", "in_projection/bias", "kernel", "bias")]
        + [second + n for n in ("kernel", "bias")]
    )
    w = _values("intersection_rnn_cell", INTERSECTION)  # the same arrays in both layers
    one, two = _intersection(w), _intersection({k: w[k] for k in ("kernel", "bias")})

    def step(x, state):
        y, h0 = one(x, state[0])
        y, h1 = two(y, state[1])
        return y, (h0, h1)

    want, _ = _unroll(step, (ZEROS, ZEROS), _steps().numpy())
    np.testing.assert_allclose(out, want, rtol=0, atol=2e-6)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="num_in_proj should be set"):
        v1.nn.dynamic_rnn(rnn.IntersectionRNNCell(N), _steps(), dtype=tf.float32)


def test_research_cells_start_from_tf1s_initializers(installed):
    rnn = _contrib_rnn()
    with tf.Graph().as_default():
        v1.set_random_seed(7)  # the draws are the same each run
        x = _steps()
        for i, cell in enumerate([rnn.IndRNNCell(N), rnn.IndyGRUCell(N), rnn.IndyLSTMCell(N),
                                  rnn.NASCell(N, use_bias=True)]):  # fmt: skip
            v1.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope=f"s{i}")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = {v.op.name: sess.run(v) for v in v1.global_variables()}
    recurrent = [v for name, v in values.items() if name.endswith("kernel_u")]
    for value in recurrent:  # one per unit and gate, in [-1, 1]
        assert value.shape[0] == 1 and np.abs(value).max() <= 1
    # uniform in [-1, 1] (std 0.577), not a constant or a narrow draw: pooled,
    # since one cell's few values can spread less by chance (0.17 seen for 6)
    assert np.concatenate(recurrent, axis=1).std() > 0.4
    for name, value in values.items():
        if name.endswith("kernel_u"):
            continue
        elif name.endswith("gates/bias"):  # the Indy GRU's gates start open
            np.testing.assert_array_equal(value, np.ones_like(value))
        elif name.endswith("bias"):
            np.testing.assert_array_equal(value, np.zeros_like(value))
    assert "s3/nas_cell/bias" in values and "s1/indy_gru_cell/candidate/kernel" in values


def test_a_users_model_on_research_cells_trains_on_the_towers(tmp_path):
    # tests/user_models/fused_rnn.py's research: a ReLU IndRNN layer under a
    # NASCell layer (MultiRNNCell, dynamic_rnn), as cell-comparison code did.
    shapes = _trained(tmp_path, "research", "replicated", max_loss=1.8)  # measured: 1.55
    cells = sorted(k for k in shapes if k.startswith("rnn/") and "Adam" not in k)
    assert cells == [
        "rnn/multi_rnn_cell/cell_0/ind_rnn_cell/bias",
        "rnn/multi_rnn_cell/cell_0/ind_rnn_cell/kernel_u",
        "rnn/multi_rnn_cell/cell_0/ind_rnn_cell/kernel_w",
        "rnn/multi_rnn_cell/cell_1/nas_cell/kernel",
        "rnn/multi_rnn_cell/cell_1/nas_cell/recurrent_kernel",
    ]
