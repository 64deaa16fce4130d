"""tf1_train.tf2.rnn: TF1's cells and dynamic_rnn in TF2, under TF1's names.

Each cell against TensorFlow's own legacy cell (tf1_train.compat.rnn_cell)
on the same arrays, in a v1 graph. Users' recurrent models against their
twins through both entry points: tests/test_tf2_rnn_entry_points.py.
"""

import os
import types

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import load_random_weights
from tf1_train.compat import _contrib_rnn, rnn_cell
from tf1_train.tf2 import rnn
from tf1_train.tf2.layers import Params

v1 = tf.compat.v1
BATCH, STEPS, DEPTH, UNITS = 3, 5, 4, 6
LENGTHS = np.array([5, 2, 1], np.int32)


# TF1's cells: tf.nn.rnn_cell's and tf.contrib.rnn's (as tf1_train.compat keeps them)
TF1_CELLS = types.SimpleNamespace(**{n: getattr(rnn_cell, n) for n in rnn_cell.__all__},
                                  **_contrib_rnn.KEPT)  # fmt: skip


def _cell(lib, kind):
    """The same cell from TF1's library or from tf1_train.tf2.rnn: the
    constructors take the same arguments."""
    return {
        "lstm": lambda: lib.LSTMCell(UNITS),
        "lstm_options": lambda: lib.LSTMCell(
            UNITS, use_peepholes=True, cell_clip=0.5, num_proj=4, proj_clip=0.3, forget_bias=0.5
        ),
        "lstm_projection": lambda: lib.LSTMCell(UNITS, num_proj=4),
        "lstm_block": lambda: lib.LSTMBlockCell(UNITS, forget_bias=0.5),
        # the fused kernel's gradient passes through a clip the state reaches
        "lstm_block_options": lambda: lib.LSTMBlockCell(
            UNITS, forget_bias=0.5, cell_clip=0.3, use_peephole=True
        ),
        "gru_block": lambda: lib.GRUBlockCell(UNITS),
        "gru_block_v2": lambda: lib.GRUBlockCellV2(UNITS),
        "layer_norm_lstm": lambda: lib.LayerNormBasicLSTMCell(
            UNITS, forget_bias=0.5, norm_gain=0.8, norm_shift=0.1
        ),
        "layer_norm_off": lambda: lib.LayerNormBasicLSTMCell(UNITS, layer_norm=False),
        "basic_lstm": lambda: lib.BasicLSTMCell(UNITS, forget_bias=0.5),
        "gru": lambda: lib.GRUCell(UNITS),
        "basic_rnn": lambda: lib.BasicRNNCell(UNITS),
        "stack": lambda: lib.MultiRNNCell([lib.LSTMCell(UNITS), lib.GRUCell(UNITS)]),
        "attention": lambda: lib.AttentionCellWrapper(lib.LSTMCell(UNITS, num_proj=4), 3),
        "attention_gru": lambda: lib.AttentionCellWrapper(
            lib.GRUCell(UNITS), 2, attn_size=4, attn_vec_size=7, state_is_tuple=False
        ),
        "projections": lambda: lib.OutputProjectionWrapper(
            lib.InputProjectionWrapper(lib.LSTMCell(UNITS), 3, activation=tf.nn.relu), 4
        ),
        # contrib.rnn's research cells (tf1_train/tf2/rnn_research.py)
        "nas": lambda: lib.NASCell(UNITS),
        "nas_options": lambda: lib.NASCell(UNITS, num_proj=4, use_bias=True),
        "ugrnn": lambda: lib.UGRNNCell(UNITS, forget_bias=0.25, activation=tf.nn.relu),
        # an input projection in the first layer, none in the second
        "intersection": lambda: lib.MultiRNNCell(
            [
                lib.IntersectionRNNCell(UNITS, num_in_proj=UNITS, forget_bias=0.5),
                lib.IntersectionRNNCell(UNITS, y_activation=tf.tanh),
            ]
        ),
        "ind_rnn": lambda: lib.IndRNNCell(UNITS, activation=tf.nn.relu),
        "indy_gru": lambda: lib.IndyGRUCell(UNITS),
        "indy_lstm": lambda: lib.IndyLSTMCell(UNITS, forget_bias=0.5),
    }[kind]()


def _flat(state):
    return [np.asarray(s) for s in tf.nest.flatten(state)]


def _dense(grads):
    """An embedding's gradient comes as IndexedSlices: as a tensor."""
    return [None if g is None else tf.convert_to_tensor(g) for g in grads]


def _compare(tf1_model, tf2_model, lengths, time_known=True, grad_atol=1e-6, x=None):
    """Runs ``tf1_model(inputs, seq)`` (TF1's cells and RNN functions, in a
    v1 graph) and ``tf2_model(params)(inputs, seq)`` (tf1_train.tf2.rnn) on
    the same arrays; each returns (outputs, states). Asserts they agree;
    returns the TF2 outputs. ``time_known=False``: the TF2 step is traced
    for inputs of any length, so its loop is a while loop. The batch stays
    static, as a tower's is (traced for any batch, the layer-normalized
    cell's moments came out up to 1.8e-7 apart). ``x``: other inputs than
    [BATCH, STEPS, DEPTH] normal floats (ids, for an embedding)."""
    if x is None:
        x = np.random.RandomState(1).randn(BATCH, STEPS, DEPTH).astype(np.float32)
    seq = LENGTHS if lengths else None
    with tf.Graph().as_default():
        out, state = tf1_model(tf.constant(x), seq)
        weights = v1.trainable_variables()
        loss = tf.add_n([tf.reduce_sum(o * o) for o in tf.nest.flatten(out)])
        grads = _dense(v1.gradients(loss, weights))
        config = v1.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        with v1.Session(config=config) as sess:
            sess.run(v1.global_variables_initializer())
            values = load_random_weights(sess, 2)
            want = sess.run({"out": out, "state": state, "grads": grads})
    params = Params()
    layer = tf2_model(params)
    assert sorted(params.by_name) == sorted(values)  # TF1's names, TF1's shapes
    for name, var in params.by_name.items():
        var.assign(values[name])

    # In a tf.function, as the TF2 step runs it, and both sides without
    # Grappler: its fusions (a tanh after the bias into oneDNN's MatMul) apply
    # alike to both, so the cells' own ops are compared, kernel for kernel
    # (eagerly, Eigen's tanh differs in the last bits); its passes took a
    # fifth of this file's time (61 -> 50 s). Without AutoGraph: the cells
    # loop with tf.while_loop and Python ranges, which it leaves as they are
    # (the same graph), and converting them cost 14 of this file's 65 s. The
    # entry-point twins (tests/test_tf2_rnn_entry_points.py) run the TF2
    # step's own tf.function, with both.
    time = STEPS if time_known else None

    @tf.function(
        input_signature=[tf.TensorSpec([BATCH, time, *x.shape[2:]], x.dtype)], autograph=False
    )
    def run(inputs):
        with tf.GradientTape() as tape:
            out, state = layer(inputs, None if seq is None else tf.constant(seq))
            loss = tf.add_n([tf.reduce_sum(o * o) for o in tf.nest.flatten(out)])
        grads = tape.gradient(loss, [params.by_name[w.op.name] for w in weights])
        return out, state, _dense(grads)

    saved = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    try:
        got_out, got_state, got_grads = run(tf.constant(x))
    finally:
        tf.config.optimizer.set_experimental_options(saved)
    for got, ref in zip(_flat(got_out), _flat(want["out"])):
        np.testing.assert_array_equal(got, ref)
    for got, ref in zip(_flat(got_state), _flat(want["state"])):
        np.testing.assert_array_equal(got, ref)
    # Gradients: the unrolled steps' contributions are summed in another
    # order than the while loop's, so the error scales with the largest
    # entry of each gradient (measured: within 7.2e-7 absolute on a Zen 4;
    # 2.6e-6 on an entry of 0.136 in a gradient reaching 29.5 on a Zen 3).
    for got, ref in zip(got_grads, want["grads"]):
        scale = max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=grad_atol * scale)
    return _flat(got_out)


KINDS = [
    "lstm",
    "basic_lstm",
    "gru",
    "basic_rnn",
    "stack",
    "lstm_options",
    "lstm_projection",
    "lstm_block",
    "lstm_block_options",
    "gru_block",
    "gru_block_v2",
    "layer_norm_lstm",
    "layer_norm_off",
    "attention",
    "attention_gru",
    "projections",
    "nas",
    "nas_options",
    "ugrnn",
    "intersection",
    "ind_rnn",
    "indy_gru",
    "indy_lstm",
]
# Every cell runs with sequence_length (the masked loop: each step's cell
# computation, then zeros past each length and the state kept). Without it
# DynamicRNN takes its unmasked loop, which sees a cell only through the
# structure of its state and output: one cell of each structure runs it
# (an LSTMStateTuple, one tensor, a MultiRNNCell's nested tuple, the
# attention wrapper's tuple and its concatenated state, a projection's
# parts of other widths, an output wider than the state);
# TF1_TRAIN_FULL_GRID=1 runs every cell both ways.
UNMASKED = {"lstm", "gru", "stack", "attention", "attention_gru", "nas_options", "projections"}
FULL_GRID = os.environ.get("TF1_TRAIN_FULL_GRID") == "1"
CELL_CASES = [
    pytest.param(kind, lengths, id=f"{kind}-{'sequence_length' if lengths else 'full'}")
    for kind in KINDS
    for lengths in (False, True)
    if lengths or FULL_GRID or kind in UNMASKED
]


@pytest.mark.parametrize("kind, lengths", CELL_CASES)
def test_cells_compute_the_legacy_cells_numbers_under_their_names(kind, lengths):
    def tf1_model(inputs, seq):
        cell = _cell(TF1_CELLS, kind)
        return v1.nn.dynamic_rnn(cell, inputs, sequence_length=seq, dtype=tf.float32)

    # The attention wrapper's gradients reach 1.5e4 on these weights, summed in
    # another order: measured 4.9e-4 apart at most, 5.7e-7 of a tensor's largest.
    grad_atol = 1e-3 if kind.startswith("attention") else 1e-6
    layer = lambda p: rnn.DynamicRNN(p, _cell(rnn, kind), DEPTH)  # noqa: E731
    (out,) = _compare(tf1_model, layer, lengths, grad_atol=grad_atol)
    if lengths:  # zeros past each length, as TF1
        assert not out[1, 2:].any() and out[1, 1].any()


@pytest.mark.parametrize("lengths", [False, True], ids=["full", "sequence_length"])
@pytest.mark.parametrize("kind", ["stack", "layer_norm_lstm"])
def test_a_time_dimension_known_only_at_run_time_loops_as_dynamic_rnn(kind, lengths):
    # Batches padded to their own longest sequence: the TF2 step is traced
    # for any length, and DynamicRNN runs a while loop instead of unrolling.
    def tf1_model(inputs, seq):
        cell = _cell(TF1_CELLS, kind)
        return v1.nn.dynamic_rnn(cell, inputs, sequence_length=seq, dtype=tf.float32)

    def tf2_model(params):
        return rnn.DynamicRNN(params, _cell(rnn, kind), DEPTH)

    (out,) = _compare(tf1_model, tf2_model, lengths, time_known=False)
    assert out.shape == (BATCH, STEPS, UNITS)


@pytest.mark.parametrize("lengths", [False, True], ids=["full", "sequence_length"])
def test_static_and_bidirectional_rnns_are_the_legacy_ones(lengths):
    # static_rnn: DynamicRNN's variables and numbers, its outputs a list.
    def tf1_model(inputs, seq):
        cell = rnn_cell.LSTMCell(UNITS)
        out, state = v1.nn.static_rnn(cell, tf.unstack(inputs, axis=1), sequence_length=seq,
                                      dtype=tf.float32)  # fmt: skip
        fw, bw = rnn_cell.GRUCell(UNITS), rnn_cell.BasicLSTMCell(UNITS)
        both = v1.nn.bidirectional_dynamic_rnn(fw, bw, inputs, sequence_length=seq,
                                               dtype=tf.float32)  # fmt: skip
        return (tf.stack(out, axis=1), both[0]), (state, both[1])

    def tf2_model(params):
        one = rnn.DynamicRNN(params, rnn.LSTMCell(UNITS), DEPTH)
        fw, bw = rnn.GRUCell(UNITS), rnn.BasicLSTMCell(UNITS)
        two = rnn.BidirectionalDynamicRNN(params, fw, bw, DEPTH)

        def call(inputs, seq):
            (out, state), both = one(inputs, seq), two(inputs, seq)
            return (out, both[0]), (state, both[1])

        return call

    _compare(tf1_model, tf2_model, lengths)


@pytest.mark.parametrize("static", [False, True], ids=["dynamic", "static"])
def test_contribs_stacked_bidirectional_rnns_are_layers_of_the_core_ones(installed, static):
    # tf.contrib.rnn.stack_bidirectional_dynamic_rnn and stack_bidirectional_rnn
    # after install(), against StackBidirectionalRNN, under the scopes TF 1.15's
    # contrib used: stack_bidirectional_rnn/cell_<i>/bidirectional_rnn/{fw,bw}/
    # (the static one passed its layer's scope on: cell_<i>/{fw,bw}/).
    name = "stack_bidirectional_rnn" if static else "stack_bidirectional_dynamic_rnn"
    found = {}
    exec(f"from tensorflow.contrib.rnn import {name}", found)
    layer1 = "stack_bidirectional_rnn/cell_1" + ("" if static else "/bidirectional_rnn")

    def tf1_model(inputs, seq):
        fw = [rnn_cell.LSTMCell(UNITS), rnn_cell.GRUCell(UNITS)]
        bw = [rnn_cell.GRUCell(UNITS), rnn_cell.LSTMCell(UNITS - 2)]
        x = tf.unstack(inputs, axis=1) if static else inputs
        out, states_fw, states_bw = found[name](fw, bw, x, sequence_length=seq, dtype=tf.float32)
        return (tf.stack(out, axis=1) if static else out), (states_fw, states_bw)

    def tf2_model(params):
        fw, bw = (
            [rnn.LSTMCell(UNITS), rnn.GRUCell(UNITS)],
            [rnn.GRUCell(UNITS), rnn.LSTMCell(UNITS - 2)],
        )
        stack = rnn.StackBidirectionalRNN(params, fw, bw, DEPTH, static=static)
        assert params.by_name[f"{layer1}/bw/lstm_cell/kernel"].shape == (2 * UNITS + 4, 16)

        def call(x, seq):
            out, states_fw, states_bw = stack(tf.unstack(x, axis=1) if static else x, seq)
            return (tf.stack(out, axis=1) if static else out), (states_fw, states_bw)

        return call

    (out,) = _compare(tf1_model, tf2_model, lengths=True)
    assert out.shape == (BATCH, STEPS, 2 * UNITS - 2)


def test_an_intersection_cell_needs_a_projection_for_another_width_as_in_tf1():
    message = "Must have input size == output size for Intersection RNN"
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        cell = TF1_CELLS.IntersectionRNNCell(UNITS)
        v1.nn.dynamic_rnn(cell, tf.zeros([BATCH, STEPS, DEPTH]), dtype=tf.float32)
    with pytest.raises(ValueError, match=message):
        rnn.DynamicRNN(Params(), rnn.IntersectionRNNCell(UNITS), DEPTH)
    assert rnn.IntersectionRNNCell(UNITS).build(Params(), "rnn", UNITS) == UNITS  # same width


def test_a_stack_of_unequal_lists_of_cells_is_tf1s_value_error(installed):
    found = {}
    exec("from tensorflow.contrib.rnn import stack_bidirectional_rnn as s, GRUCell", found)
    steps = [tf.zeros([2, 3])] * 4
    with tf.Graph().as_default(), pytest.raises(ValueError, match="one cell per layer"):
        found["s"]([found["GRUCell"](4)] * 2, [found["GRUCell"](4)], steps, dtype=tf.float32)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="lists of RNNCells"):
        found["s"](found["GRUCell"](4), found["GRUCell"](4), steps, dtype=tf.float32)
    with pytest.raises(ValueError, match="one cell per layer"):
        rnn.StackBidirectionalRNN(Params(), [rnn.GRUCell(4)], [], 3)


@pytest.mark.parametrize("lengths", [False, True], ids=["full", "sequence_length"])
def test_fused_lstm_twin_is_contribs_fused_cell_both_ways(lengths):
    # tf.contrib.rnn.LSTMBlockFusedCell (TensorFlow's BlockLSTM kernel, as
    # tf1_train.compat keeps it) on a time-major input, forwards and through
    # TimeReversedFusedRNN, against tf1_train.tf2.rnn.LSTMBlockFusedCell.
    def tf1_model(inputs, seq):
        x = tf.transpose(inputs, [1, 0, 2])
        fw = _contrib_rnn.LSTMBlockFusedCell(UNITS, forget_bias=0.5, cell_clip=0.3, name="fw")
        bw = _contrib_rnn.TimeReversedFusedRNN(_contrib_rnn.LSTMBlockFusedCell(UNITS, name="bw"))
        (out_fw, state_fw), (out_bw, state_bw) = (
            cell(x, dtype=tf.float32, sequence_length=seq) for cell in (fw, bw)
        )
        return (out_fw, out_bw), (tuple(state_fw), tuple(state_bw))

    def tf2_model(params):
        fw = rnn.LSTMBlockFusedCell(params, UNITS, DEPTH, forget_bias=0.5, cell_clip=0.3, name="fw")
        bw = rnn.LSTMBlockFusedCell(params, UNITS, DEPTH, name="bw", reverse=True)

        def call(inputs, seq):
            x = tf.transpose(inputs, [1, 0, 2])
            (out_fw, state_fw), (out_bw, state_bw) = fw(x, seq), bw(x, seq)
            return (out_fw, out_bw), (state_fw, state_bw)

        return call

    out_fw, out_bw = _compare(tf1_model, tf2_model, lengths)
    if lengths:  # time-major: zeros past each length in both directions
        assert not out_fw[2:, 1].any() and not out_bw[2:, 1].any() and out_bw[1, 1].any()
