"""tf.contrib.rnn's fused cells after tf1_train.compat.install().

Each is held to something TensorFlow 2.21 computes on its own:
``LSTMBlockFusedCell`` to ``LSTMCell`` under ``dynamic_rnn`` on the same
arrays (TF1 documented the two as interchangeable, variable names
included), ``TimeReversedFusedRNN`` to the backward half of TensorFlow's
``bidirectional_dynamic_rnn``, and ``GRUBlockCell``/``V2`` to TensorFlow's
own fused ``GRUBlockCell`` op stepped on the same arrays. Then a user model
on these cells (tests/user_models/fused_rnn.py) trains on the towers.
"""

import json
import zlib

import numpy as np
import pytest
import tensorflow as tf
from conftest import run_cli

from tf1_train.port import rnn_weights

v1 = tf.compat.v1
TIME, BATCH, DEPTH, UNITS = 7, 4, 5, 6
LENGTHS = np.array([7, 3, 0, 5], np.int32)  # a full one, short ones, an empty one


def _contrib_rnn():
    names = {}
    exec("from tensorflow.contrib import rnn", names)  # as a user's module imports it
    return names["rnn"]


def _steps():
    """[time, batch, depth] inputs, a constant in the graph being built."""
    return tf.constant(np.random.RandomState(0).randn(TIME, BATCH, DEPTH).astype(np.float32))


def _value(name, shape):
    """An array for a variable, drawn from its last two name parts
    (``lstm_fused_cell/kernel``, ``bw/bias``): the same in both graphs a test
    compares, whatever scope each puts around the cell."""
    key = "/".join(name.split("/")[-2:])
    return 0.5 * np.random.RandomState(zlib.crc32(key.encode())).randn(*shape).astype(np.float32)


def _run(build):
    """Builds ``build() -> (outputs, state)`` in a graph of its own, sets
    each variable to _value(), and returns (outputs, state, {variable name:
    gradient of a loss on both}, for the variables it depends on)."""
    with tf.Graph().as_default():
        outputs, state = build()
        variables = v1.global_variables()
        loss = tf.reduce_sum(outputs * outputs) + tf.add_n(
            [tf.reduce_sum(s) for s in tf.nest.flatten(state)]
        )
        grads = {  # dense: an embedding's gradient comes as IndexedSlices
            v.op.name: tf.convert_to_tensor(g)
            for v, g in zip(variables, tf.gradients(loss, variables))
            if g is not None
        }
        with v1.Session() as sess:
            for var in variables:
                var.load(_value(var.op.name, var.shape), sess)
            return tuple(sess.run([outputs, state, grads]))


FUSED_CASES = {  # kwargs, sequence lengths
    "default": ({}, None),
    "sequence_length": ({}, LENGTHS),
    "forget_bias": ({"forget_bias": 0.0}, LENGTHS),
    "peephole": ({"use_peephole": True}, LENGTHS),
    "clip_not_reached": ({"cell_clip": 3.0}, LENGTHS),
    "clip_reached": ({"cell_clip": 0.5}, LENGTHS),
    "peephole_clip_reached": ({"use_peephole": True, "cell_clip": 0.5}, LENGTHS),
}


@pytest.mark.parametrize("case", list(FUSED_CASES))
def test_fused_lstm_is_lstm_cell_under_dynamic_rnn(installed, case):
    kwargs, lengths = FUSED_CASES[case]
    rnn = _contrib_rnn()

    def fused():
        cell = rnn.LSTMBlockFusedCell(UNITS, **kwargs)
        return cell(_steps(), dtype=tf.float32, sequence_length=lengths)

    def core():
        cell = rnn.LSTMCell(UNITS, forget_bias=kwargs.get("forget_bias", 1.0),
                            use_peepholes=kwargs.get("use_peephole", False),
                            cell_clip=kwargs.get("cell_clip"), name="lstm_fused_cell")  # fmt: skip
        return v1.nn.dynamic_rnn(cell, _steps(), sequence_length=lengths, dtype=tf.float32,
                                 time_major=True)  # fmt: skip

    out, state, grads = _run(fused)
    want_out, want_state, want_grads = _run(core)
    peep = ["w_i_diag", "w_f_diag", "w_o_diag"] if kwargs.get("use_peephole") else []
    assert sorted(grads) == sorted(f"lstm_fused_cell/{n}" for n in ["kernel", "bias", *peep])
    # LSTMCell's variables under the same layer name: checkpoints restore across
    assert sorted(want_grads) == sorted(f"rnn/{n}" for n in grads)
    # Measured: outputs and states bit-identical; with peepholes 6e-8 on a
    # Zen 4 (AVX-512), 1.5e-7 on a Zen 3 (AVX2 only), oneDNN on for both:
    # a few float32 steps of values below 1, the peephole products fused
    # in another order by the kernel.
    tol = 3e-7 if peep else 0
    np.testing.assert_allclose(out, want_out, rtol=0, atol=tol)
    np.testing.assert_allclose(state, want_state, rtol=0, atol=tol)
    if lengths is not None:
        assert not out[LENGTHS[1] :, 1].any() and not out[:, 2].any()  # zeros past the length
    diff = max(np.abs(g - want_grads[f"rnn/{n}"]).max() for n, g in grads.items())
    if case.endswith("clip_reached"):
        # TF1's fused gradient (the BlockLSTMGrad kernel, which this cell runs as
        # TF 1.15 did) passes the gradient through a clipped cell state, where
        # LSTMCell's clip_by_value stops it. Measured: 2.5-3.1 apart.
        assert diff > 0.1
    else:
        assert diff < 2e-6  # measured: 1.0e-6 at most


def test_fused_lstm_takes_a_list_of_steps_and_gives_one_back(installed):
    rnn = _contrib_rnn()
    listed = _run(
        lambda: _stacked(rnn.LSTMBlockFusedCell(UNITS)(tf.unstack(_steps()), dtype=tf.float32))
    )
    whole = _run(lambda: rnn.LSTMBlockFusedCell(UNITS)(_steps(), dtype=tf.float32))
    np.testing.assert_array_equal(listed[0], whole[0])


def _stacked(result):
    outputs, state = result
    assert isinstance(outputs, list) and len(outputs) == TIME
    return tf.stack(outputs), state


def test_time_reversed_fused_rnn_is_the_backward_half_of_bidirectional_dynamic_rnn(installed):
    rnn = _contrib_rnn()

    def fused():
        cell = rnn.TimeReversedFusedRNN(rnn.LSTMBlockFusedCell(UNITS, name="bw"))
        return cell(_steps(), dtype=tf.float32, sequence_length=LENGTHS)

    def core():
        fw, bw = rnn.LSTMCell(UNITS, name="fw"), rnn.LSTMCell(UNITS, name="bw")
        (_, out_bw), (_, state_bw) = v1.nn.bidirectional_dynamic_rnn(
            fw, bw, _steps(), sequence_length=LENGTHS, dtype=tf.float32, time_major=True
        )
        return out_bw, state_bw

    out, state, grads = _run(fused)
    want_out, want_state, want_grads = _run(core)
    assert sorted(grads) == ["bw/bias", "bw/kernel"]
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(state, want_state)
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, want_grads[f"bidirectional_rnn/bw/{name}"],
                                   rtol=1e-5, atol=1e-5, err_msg=name)  # fmt: skip


@pytest.mark.parametrize("version, names", [
    ("GRUBlockCell", ["w_ru", "b_ru", "w_c", "b_c"]),
    ("GRUBlockCellV2", ["gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias"]),
])  # fmt: skip
def test_gru_block_cell_steps_as_tensorflows_fused_op_and_its_gradient_kernel(
    installed, version, names
):
    # One step on fixed arrays: h and the gradients of sum(h * dh) against
    # TensorFlow's fused GRUBlockCell op and its GRUBlockCellGrad kernel put
    # together as TF 1.15's registered gradient did.
    rng = np.random.RandomState(4)
    x, h0, dh = (rng.randn(BATCH, n).astype(np.float32) for n in (DEPTH, UNITS, UNITS))
    with tf.Graph().as_default():
        cell = getattr(_contrib_rnn(), version)(UNITS)
        inputs = [tf.constant(x), tf.constant(h0)]
        h, _ = cell(*inputs)
        weights = cell.variables  # w_ru, b_ru, w_c, b_c (or V2's names), in that order
        grads = tf.gradients(tf.reduce_sum(h * dh), inputs + weights)
        arrays = [0.5 * rng.randn(*w.shape).astype(np.float32) for w in weights]
        with v1.Session() as sess:
            for w, a in zip(weights, arrays):
                w.load(a, sess)
            got_h, got_grads = sess.run([h, grads])
    assert [w.op.name for w in weights] == [f"gru_cell/{n}" for n in names]
    w_ru, b_ru, w_c, b_c = arrays
    r, u, c, want_h = tf.raw_ops.GRUBlockCell(x=x, h_prev=h0, w_ru=w_ru, w_c=w_c, b_ru=b_ru,
                                              b_c=b_c)  # fmt: skip
    d_x, d_h0, d_c_bar, d_ru_bar = tf.raw_ops.GRUBlockCellGrad(
        x=x, h_prev=h0, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c, r=r, u=u, c=c, d_h=dh
    )
    want = [d_x, d_h0,
            tf.matmul(tf.concat([x, h0], 1), d_ru_bar, transpose_a=True),
            tf.reduce_sum(d_ru_bar, 0),
            tf.matmul(tf.concat([x, h0 * r], 1), d_c_bar, transpose_a=True),
            tf.reduce_sum(d_c_bar, 0)]  # fmt: skip
    # Measured: h within 2.4e-7, gradients within 3.0e-7 (values near 1)
    np.testing.assert_allclose(got_h, want_h, rtol=0, atol=1e-6)
    for name, g, w in zip(["x", "h_prev", *names], got_grads, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6, err_msg=name)


def test_gru_block_cell_takes_num_units_or_the_old_cell_size(installed):
    rnn = _contrib_rnn()
    assert rnn.GRUBlockCell(cell_size=3).output_size == 3
    for kwargs in ({}, {"num_units": 3, "cell_size": 3}):
        with pytest.raises(ValueError, match="Exactly one of num_units or cell_size"):
            rnn.GRUBlockCell(**kwargs)


def train_user_model(tmp_path, module: str, model: str, mode: str, steps: int = 40):
    """Trains tests/user_models/``module``.py's ``model`` on 2 towers through
    the CLI (adam, 0.01); (its stdout, its run_summary.json)."""
    out = run_cli([
        f"--model=tests.user_models.{module}:{model}", "--num_gpus=2",
        f"--variable_update={mode}", f"--train_steps={steps}", "--optimizer=adam",
        "--learning_rate=0.01", f"--display_every={steps}", f"--train_dir={tmp_path}",
    ])  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout, json.loads((tmp_path / "run_summary.json").read_text())


def _trained(tmp_path, model: str, mode: str, max_loss: float = 1.5,
             module: str = "fused_rnn") -> dict:  # fmt: skip
    """Trains ``module``'s ``model`` for 40 steps (the final loss below
    ``max_loss``); its checkpoint's {name: shape}."""
    _, summary = train_user_model(tmp_path, module, model, mode)
    assert summary["final_loss"] < max_loss  # from ln(10) = 2.30 at the start
    return tf.train.load_checkpoint(str(tmp_path)).get_variable_to_shape_map()


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_a_users_fused_cell_model_trains_on_the_towers(tmp_path, mode):
    # tests/user_models/fused_rnn.py: a bidirectional LSTMBlockFusedCell layer
    # (TimeReversedFusedRNN) and a GRUBlockCell; its only change is install().
    shapes = _trained(tmp_path, "build", mode)
    cells = sorted(k for k in shapes if "Adam" not in k and k.startswith(("fw/", "bw/", "rnn/")))
    assert cells == [
        "bw/bias",
        "bw/kernel",
        "fw/bias",
        "fw/kernel",
        "rnn/gru_cell/b_c",
        "rnn/gru_cell/b_ru",
        "rnn/gru_cell/w_c",
        "rnn/gru_cell/w_ru",
    ]  # fmt: skip  (once each, whatever the mode: one copy saved)
    assert shapes["fw/kernel"] == [8 + 16, 4 * 16] and shapes["rnn/gru_cell/w_ru"] == [32 + 16, 32]


@pytest.mark.parametrize("kwargs", [{}, {"use_peephole": True, "cell_clip": 0.5}],
                         ids=["default", "peephole_clip_reached"])  # fmt: skip
def test_lstm_block_cell_gradient_is_tf1s_registered_one(installed, kwargs):
    # One step on fixed arrays: the gradients of sum(h * dh) + sum(c * dc)
    # against TensorFlow's LSTMBlockCellGrad kernel put together as TF 1.15's
    # registered gradient did (through an active clip too, which LSTMCell's
    # clip_by_value would stop).
    rng = np.random.RandomState(5)
    x, c0, h0, dc, dh = (rng.randn(BATCH, n).astype(np.float32)
                         for n in (DEPTH, UNITS, UNITS, UNITS, UNITS))  # fmt: skip
    peep = bool(kwargs)
    with tf.Graph().as_default():
        cell = _contrib_rnn().LSTMBlockCell(UNITS, **kwargs)
        inputs = [tf.constant(a) for a in (x, c0, h0)]
        h, (c, _) = cell(inputs[0], (inputs[1], inputs[2]))
        weights = cell.variables  # kernel, bias, then w_i/f/o_diag
        grads = tf.gradients(tf.reduce_sum(h * dh) + tf.reduce_sum(c * dc), inputs + weights)
        arrays = [0.5 * rng.randn(*w.shape).astype(np.float32) for w in weights]
        with v1.Session() as sess:
            for w, a in zip(weights, arrays):
                w.load(a, sess)
            got = sess.run(grads)
    w, b = arrays[:2]
    zero = np.zeros(UNITS, np.float32)
    wci, wcf, wco = arrays[2:] if peep else (zero, zero, zero)
    args = dict(x=x, cs_prev=c0, h_prev=h0, w=w, wci=wci, wcf=wcf, wco=wco, b=b)
    fwd = tf.raw_ops.LSTMBlockCell(forget_bias=1.0, cell_clip=kwargs.get("cell_clip", -1.0),
                                   use_peephole=peep, **args)  # fmt: skip
    c0_grad, dicfo, wci_grad, wcf_grad, wco_grad = tf.raw_ops.LSTMBlockCellGrad(
        i=fwd.i, cs=fwd.cs, f=fwd.f, o=fwd.o, ci=fwd.ci, co=fwd.co, cs_grad=dc, h_grad=dh,
        use_peephole=peep, **args,
    )  # fmt: skip
    if "cell_clip" in kwargs:  # the clip is reached in this step
        free = tf.raw_ops.LSTMBlockCell(forget_bias=1.0, cell_clip=-1.0, use_peephole=peep, **args)
        assert (np.abs(free.cs) > kwargs["cell_clip"]).any()
    xh_grad = tf.matmul(dicfo, w, transpose_b=True)
    want = [xh_grad[:, :DEPTH], c0_grad, xh_grad[:, DEPTH:],
            tf.matmul(tf.concat([x, h0], 1), dicfo, transpose_a=True),
            tf.reduce_sum(dicfo, 0), wci_grad, wcf_grad, wco_grad]  # fmt: skip
    names = ["x", "c_prev", "h_prev", "kernel", "bias", "w_i_diag", "w_f_diag", "w_o_diag"]
    assert [v.op.name for v in weights] == [f"lstm_cell/{n}" for n in names[3 : 3 + len(arrays)]]
    for name, g, w_ in zip(names, got, want):
        np.testing.assert_allclose(g, w_, rtol=0, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("kwargs", [{}, {"use_peephole": True, "cell_clip": 0.5},
                                    {"cell_clip": 0.0}],
                         ids=["default", "peephole_clip", "clip_0_is_none"])  # fmt: skip
def test_lstm_block_cell_in_bfloat16_is_lstm_cells_formula(installed, kwargs):
    # The fused kernels have no bfloat16 version (TF1 never ran them in it):
    # under --precision=bf16 the cell computes LSTMCell's ops, bit for bit;
    # a cell_clip of 0 is the kernel's "no clip" (LSTMCell's would zero c).
    rnn = _contrib_rnn()
    clip = kwargs.get("cell_clip") or None
    core = dict(use_peepholes=kwargs.get("use_peephole", False), cell_clip=clip)
    got = []
    for make in (lambda: rnn.LSTMBlockCell(UNITS, dtype=tf.bfloat16, **kwargs),
                 lambda: rnn.LSTMCell(UNITS, dtype=tf.bfloat16, **core)):  # fmt: skip
        with tf.Graph().as_default():
            x = tf.cast(_steps(), tf.bfloat16)
            out, state = v1.nn.dynamic_rnn(make(), x, dtype=tf.bfloat16, time_major=True)
            with v1.Session() as sess:
                for var in v1.global_variables():
                    var.load(_value(var.op.name, var.shape).astype(tf.bfloat16.as_numpy_dtype))
                got.append(sess.run([tf.cast(out, tf.float32), tf.cast(state.c, tf.float32)]))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])


def test_fused_cells_checkpoints_become_keras_layers_with_the_tf1_outputs(installed, tmp_path):
    # A TF2 port of LSTMBlockFusedCell / GRUBlockCell code: Keras' LSTM and
    # GRU(reset_after=False), weights from the TF1 checkpoint by
    # tf1_train.port.rnn_weights.from_checkpoint, which knows the cells by
    # their names (lstm_fused_cell; w_ru ...).
    rnn = _contrib_rnn()
    with tf.Graph().as_default():
        lstm_out, _ = rnn.LSTMBlockFusedCell(UNITS)(_steps(), dtype=tf.float32)
        gru_out, _ = v1.nn.dynamic_rnn(rnn.GRUBlockCell(UNITS), _steps(), dtype=tf.float32,
                                       time_major=True)  # fmt: skip
        with v1.Session() as sess:
            for var in v1.global_variables():
                var.load(_value(var.op.name, var.shape), sess)
            want = sess.run([lstm_out, gru_out])
            v1.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    batch_major = np.transpose(_steps().numpy(), [1, 0, 2])
    for scope, tf1_out in zip(["lstm_fused_cell", "rnn/gru_cell"], want):
        layer_name, weights = rnn_weights.from_checkpoint(str(tmp_path / "model.ckpt"), scope)
        options = {"reset_after": False} if layer_name == "GRU" else {}
        layer = getattr(tf.keras.layers, layer_name)(UNITS, return_sequences=True, **options)
        layer.build((None, TIME, DEPTH))
        layer.set_weights(weights)
        got = np.transpose(layer(batch_major).numpy(), [1, 0, 2])
        np.testing.assert_allclose(got, tf1_out, rtol=0, atol=1e-5, err_msg=scope)
