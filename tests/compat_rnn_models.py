"""Legacy RNN-cell models, shared by scripts/make_layer_goldens.py (run with
tf_keras' ``tf.compat.v1.nn.rnn_cell``) and tests/test_compat_rnn.py (run
with tf1_train.compat.rnn_cell). Each builder gets ``tf`` and a cells module
``R``; compat_layer_models.measure builds and measures them the same way as
the layer models. The patterns are those of TF1 code bases: dynamic_rnn with
sequence lengths, stacked and wrapped cells, the PTB model's hand-unrolled
loop with ``reuse_variables()``, bidirectional and static RNNs, towers under
``variable_scope(reuse=True)``, and seeded dropout wrappers.
This module imports neither TensorFlow nor tf1_train.
"""

import numpy as np

BATCH, TIME, DEPTH = 3, 4, 2


def _sequence(tf, seed=20, shape=(BATCH, TIME, DEPTH)):
    data = np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)
    return tf.compat.v1.placeholder(tf.float32, shape, name="x"), data


def _lengths(tf):
    return tf.constant([TIME, 2, 3], name="lengths")


def _state(prefix, state):
    """A (nested) state as named fetches."""
    flat = state if isinstance(state, (tuple, list)) else [state]
    out = {}
    for i, s in enumerate(flat):
        nested = isinstance(s, (tuple, list))
        out.update(_state(f"{prefix}{i}_", s) if nested else {f"{prefix}{i}": s})
    return out


def basic_lstm(tf, R):
    x, data = _sequence(tf)
    out, state = tf.compat.v1.nn.dynamic_rnn(
        R.BasicLSTMCell(5), x, sequence_length=_lengths(tf), dtype=tf.float32
    )
    return {"out": out, **_state("state", state)}, {x: data}, [x]


def lstm_options(tf, R):
    """Peepholes, clipping, projection, a forget bias and a concatenated state."""
    x, data = _sequence(tf, seed=21)
    cell = R.LSTMCell(
        6, use_peepholes=True, cell_clip=0.7, num_proj=4, proj_clip=0.5, forget_bias=0.5
    )
    a, sa = tf.compat.v1.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="full")
    flat = R.LSTMCell(3, state_is_tuple=False, activation=tf.nn.relu)
    b, sb = tf.compat.v1.nn.dynamic_rnn(flat, x, dtype=tf.float32, scope="flat")
    return {"a": a, "b": b, **_state("sa", sa), "sb": sb}, {x: data}, [x]


def stacked(tf, R):
    """MultiRNNCell of a GRU and a ReLU BasicRNNCell; a residual GRU on top."""
    x, data = _sequence(tf, seed=22)
    cells = R.MultiRNNCell([R.GRUCell(4), R.BasicRNNCell(2, activation=tf.nn.relu)])
    a, sa = tf.compat.v1.nn.dynamic_rnn(cells, x, sequence_length=_lengths(tf), dtype=tf.float32)
    b, _ = tf.compat.v1.nn.dynamic_rnn(
        R.ResidualWrapper(R.GRUCell(2)), a, dtype=tf.float32, scope="res"
    )
    return {"a": a, "b": b, **_state("sa", sa)}, {x: data}, [x]


def ptb_unrolled(tf, R):
    """The PTB tutorial's loop: one cell object, reuse_variables() after step 0."""
    x, data = _sequence(tf, seed=23)
    cell = R.MultiRNNCell([R.BasicLSTMCell(3, forget_bias=0.0) for _ in range(2)])
    state = cell.zero_state(BATCH, tf.float32)
    outputs = []
    with tf.compat.v1.variable_scope("RNN"):
        for t in range(TIME):
            if t > 0:
                tf.compat.v1.get_variable_scope().reuse_variables()
            out, state = cell(x[:, t, :], state)
            outputs.append(out)
    return {"out": tf.stack(outputs, 1), **_state("state", state)}, {x: data}, [x]


def bidirectional_and_static(tf, R):
    x, data = _sequence(tf, seed=24)
    (fw, bw), _ = tf.compat.v1.nn.bidirectional_dynamic_rnn(
        R.LSTMCell(3), R.GRUCell(3), x, sequence_length=_lengths(tf), dtype=tf.float32
    )
    steps = tf.unstack(x, axis=1)
    outs, state = tf.compat.v1.nn.static_rnn(
        R.BasicLSTMCell(2), steps, dtype=tf.float32, scope="static"
    )
    return {"fw": fw, "bw": bw, "static": tf.stack(outs, 1), **_state("s", state)}, {x: data}, [x]


def towers(tf, R):
    """Two towers under variable_scope(reuse=True), each building its own cells."""
    x, data = _sequence(tf, seed=25)
    fetches = {}
    for i in range(2):
        with tf.compat.v1.variable_scope(tf.compat.v1.get_variable_scope(), reuse=i > 0):
            with tf.name_scope(f"tower_{i}"):
                cell = R.MultiRNNCell([R.LSTMCell(3), R.GRUCell(3)])
                out, _ = tf.compat.v1.nn.dynamic_rnn(cell, x * (i + 1.0), dtype=tf.float32)
                fetches[f"tower{i}"] = out
    return fetches, {x: data}, [x]


def dropout_seeded(tf, R):
    """DropoutWrapper with op seeds (derived from ``seed``) under a graph seed.

    Not the plain wrapper inside dynamic_rnn: there TensorFlow 2.21 runs the
    loop body as a function, and its seeded random ops gave other masks in
    the second and third copies of one graph built in one process (with
    tf_keras' cells too), so goldens made in one process could not hold
    another. static_rnn unrolls the steps into the graph; the variational
    wrapper draws its noise once, outside the loop."""
    tf.compat.v1.set_random_seed(1234)
    x, data = _sequence(tf, seed=26)
    plain = R.DropoutWrapper(
        R.BasicLSTMCell(4), input_keep_prob=0.8, output_keep_prob=0.7, state_keep_prob=0.9, seed=7
    )
    steps = tf.unstack(x, axis=1)
    a, _ = tf.compat.v1.nn.static_rnn(plain, steps, dtype=tf.float32, scope="plain")
    a = tf.stack(a, 1)
    variational = R.DropoutWrapper(
        R.GRUCell(3),
        input_keep_prob=0.75,
        output_keep_prob=0.5,
        variational_recurrent=True,
        input_size=DEPTH,
        dtype=tf.float32,
        seed=8,
    )
    b, _ = tf.compat.v1.nn.dynamic_rnn(variational, x, dtype=tf.float32, scope="variational")
    return {"a": a, "b": b}, {x: data}, [x]


MODELS = {
    f.__name__: f
    for f in (
        basic_lstm,
        lstm_options,
        stacked,
        ptb_unrolled,
        bidirectional_and_static,
        towers,
        dropout_seeded,
    )
}
