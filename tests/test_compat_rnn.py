"""TF1 RNN cells on Keras 3 and their TF2 port.

tf1_train.compat.rnn_cell (``tf.nn.rnn_cell`` after install()) against
tf_keras' legacy cells: the goldens in tests/goldens/compat_rnn come from
scripts/make_layer_goldens.py, run with tf_keras and TF_USE_LEGACY_KERAS=1 in
an environment of its own; names and collections must be equal, outputs,
final states and gradients agree to 1e-6, and the legacy checkpoints
restore. Then a user's recurrent model trains on the towers through the CLI,
and tf1_train.port.rnn_weights turns TF1 cell weights into Keras 3 layer
weights that give the TF1 outputs (and the arrays copied as they are do not).
"""

import functools
import json
import os
import pathlib
import subprocess
import sys

import compat_layer_models as harness
import compat_rnn_models as models
import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

from tf1_train.compat import rnn_cell
from tf1_train.port import rnn_weights

GOLDENS = pathlib.Path(__file__).resolve().parent / "goldens" / "compat_rnn"
REPORT = json.loads((GOLDENS / "goldens.json").read_text())
TOL = dict(rtol=1e-6, atol=1e-6)
v1 = tf.compat.v1


@functools.cache
def _ours(name, restore=None):
    arrays = dict(np.load(GOLDENS / f"{name}.npz"))
    weights = None if restore else {k[2:]: v for k, v in arrays.items() if k.startswith("w/")}
    return harness.measure(
        tf, rnn_cell, name, weights=weights, restore=restore, models=models.MODELS
    )


def _assert_arrays_close(ours, theirs, what):
    assert sorted(ours) == sorted(theirs), what
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], err_msg=f"{what}: {key}", **TOL)


def test_goldens_cover_every_model_and_none_failed():
    assert set(REPORT["models"]) == set(models.MODELS)
    assert [n for n, m in REPORT["models"].items() if "error" in m] == []


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_names_and_collections_equal_the_legacy_cells(name):
    meta, _ = _ours(name)
    assert meta == REPORT["models"][name]


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_outputs_states_and_gradients_match_the_legacy_cells(name):
    _, arrays = _ours(name)
    _assert_arrays_close(arrays, dict(np.load(GOLDENS / f"{name}.npz")), name)


@pytest.mark.parametrize("name", REPORT["checkpoints"])
def test_legacy_checkpoint_restores_into_our_graph(name):
    _, arrays = _ours(name, restore=str(GOLDENS / f"{name}.ckpt"))
    _assert_arrays_close(arrays, dict(np.load(GOLDENS / f"{name}.npz")), name)


def test_every_v1_rnn_cell_name_is_a_legacy_class():
    # TF 1.15's tf.nn.rnn_cell: the ten names, all of them TensorFlow's own objects
    assert len(rnn_cell.__all__) == 10
    for name in rnn_cell.__all__:
        assert getattr(rnn_cell, name).__module__.startswith("tensorflow.python."), name


INSTALL = """
import tensorflow as tf
import tf1_train.compat
def probe():
    try:
        return tf.compat.v1.nn.rnn_cell.LSTMCell.__module__
    except AttributeError as e:
        return "raises: " + str(e)
print(probe())
tf1_train.compat.install()
import tensorflow.compat.v1 as t1
print(probe(), t1.nn.rnn_cell.GRUCell is tf1_train.compat.rnn_cell.GRUCell)
from tensorflow.contrib import rnn
print(rnn.BasicLSTMCell is t1.nn.rnn_cell.BasicLSTMCell, rnn.static_rnn is t1.nn.static_rnn)
try:
    rnn.GridLSTMCell
except AttributeError as e:
    print(e)
tf1_train.compat.uninstall()
print(probe())
"""


def test_install_points_rnn_cell_at_the_legacy_cells_and_uninstall_puts_it_back():
    out = subprocess.run(
        [sys.executable, "-c", INSTALL],
        cwd=ROOT,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    before, after, contrib, block_cell, uninstalled = out.stdout.splitlines()[-5:]
    assert before == uninstalled == "raises: `LSTMCell` is not available with Keras 3."
    assert after == "tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl True"
    # tf.contrib.rnn: the core objects it re-exported, and one line for the rest
    assert contrib == "True True"
    gone = "tensorflow.contrib.rnn.GridLSTMCell was removed with tf.contrib"
    assert block_cell.startswith(gone + " in TensorFlow 2.0")


SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "rnn_tutorial_style.py")


def test_rnn_tutorial_style_program_stops_as_written_and_trains_through_python_m_compat(
    tmp_path,
):
    # from tensorflow.contrib import rnn; rnn.BasicLSTMCell + rnn.static_rnn; a
    # tf.nn.rnn_cell GRU/LSTM stack in DropoutWrappers under dynamic_rnn with
    # sequence lengths; placeholders in feed_dict; a Saver.
    def run(*args):
        return subprocess.run(
            [sys.executable, *args],
            cwd=tmp_path,
            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
            capture_output=True,
            text=True,
            timeout=240,
        )

    as_written = run(SCRIPT, "--steps=1")
    assert as_written.returncode == 1
    assert "No module named 'tensorflow.contrib'" in as_written.stderr.splitlines()[-1]
    out = run_cli([SCRIPT, f"--train_dir={tmp_path}"], module="tf1_train.compat", cwd=tmp_path,
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    values = dict(line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)
    assert float(values["last_loss"]) < float(values["first_loss"]) / 4
    assert float(values["accuracy"]) > 0.85  # 500 held-out sequences, two classes
    assert values["cells"].split() == [
        "dynamic/rnn/multi_rnn_cell/cell_0/gru_cell/candidate/bias",
        "dynamic/rnn/multi_rnn_cell/cell_0/gru_cell/candidate/kernel",
        "dynamic/rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias",
        "dynamic/rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel",
        "dynamic/rnn/multi_rnn_cell/cell_1/lstm_cell/bias",
        "dynamic/rnn/multi_rnn_cell/cell_1/lstm_cell/kernel",
        "out_w",
        "static/rnn/basic_lstm_cell/bias",
        "static/rnn/basic_lstm_cell/kernel",
    ]
    assert (tmp_path / "model.ckpt.index").exists()


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_a_users_recurrent_model_trains_on_the_towers(tmp_path, mode):
    # tests/user_models/row_rnn.py: LSTMCell in a DropoutWrapper, GRUCell,
    # MultiRNNCell, dynamic_rnn; its only change is install() at the top.
    out = run_cli(
        [
            "--model=tests.user_models.row_rnn:build",
            "--num_gpus=2",
            f"--variable_update={mode}",
            "--train_steps=40",
            "--optimizer=adam",
            "--learning_rate=0.01",
            "--display_every=40",
            f"--train_dir={tmp_path}",
        ]
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    assert summary["final_loss"] < 1.5  # from ln(10) = 2.30 at the start
    shapes = tf.train.load_checkpoint(str(tmp_path)).get_variable_to_shape_map()
    cells = sorted(k for k in shapes if k.startswith("rnn/") and "Adam" not in k)
    assert cells == [
        "rnn/multi_rnn_cell/cell_0/lstm_cell/bias",
        "rnn/multi_rnn_cell/cell_0/lstm_cell/kernel",
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias",
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel",
        "rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias",
        "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel",
    ]  # once each, whatever the mode: one copy saved
    assert shapes["rnn/multi_rnn_cell/cell_0/lstm_cell/kernel"] == [8 + 32, 4 * 32]


# ---- the TF2 port: Keras 3 layers with the TF1 weights ----

UNITS, STEPS, DEPTH = 5, 6, 3
CELLS = {
    "BasicLSTMCell": (lambda: rnn_cell.BasicLSTMCell(UNITS), "LSTM"),
    "LSTMCell forget_bias=0.5": (lambda: rnn_cell.LSTMCell(UNITS, forget_bias=0.5), "LSTM"),
    "GRUCell": (lambda: rnn_cell.GRUCell(UNITS), "GRU"),
    "BasicRNNCell": (lambda: rnn_cell.BasicRNNCell(UNITS), "SimpleRNN"),
}


def _sequence():
    return np.random.RandomState(3).uniform(-1, 1, (4, STEPS, DEPTH)).astype(np.float32)


def _tf1_run(make_cell, save_to=None):
    """dynamic_rnn over _sequence() with weights drawn from each variable's
    name; (outputs, last state h, {variable name: value})."""
    with tf.Graph().as_default():
        cell = make_cell()
        out, state = v1.nn.dynamic_rnn(cell, tf.constant(_sequence()), dtype=tf.float32)
        last = state.h if isinstance(state, rnn_cell.LSTMStateTuple) else state
        variables = v1.global_variables()
        with v1.Session() as sess:
            values = {}
            for v in variables:
                values[v.op.name] = harness.fixed_value(v.op.name, v.shape.as_list()) * 2
                v.load(values[v.op.name], sess)
            if save_to:
                v1.train.Saver().save(sess, save_to)
            got, h = sess.run([out, last])
    return got, h, values


def _keras_run(layer_name, weights, **options):
    layer = getattr(tf.keras.layers, layer_name)(
        UNITS, return_sequences=True, return_state=True, **options
    )
    layer.build((None, STEPS, DEPTH))
    layer.set_weights(weights)
    out, *states = layer(tf.constant(_sequence()))
    return out.numpy(), states[0].numpy()  # LSTM: [h, c]; GRU/SimpleRNN: [h]


@pytest.mark.parametrize("label", sorted(CELLS))
def test_keras_layer_with_converted_weights_gives_the_tf1_outputs(label, tmp_path):
    make, kind = CELLS[label]
    ckpt = str(tmp_path / "model.ckpt")
    tf1_out, tf1_h, _ = _tf1_run(make, save_to=ckpt)
    scope = "rnn/" + {"LSTM": "lstm_cell", "GRU": "gru_cell", "SimpleRNN": "basic_rnn_cell"}[kind]
    if label == "BasicLSTMCell":
        scope = "rnn/basic_lstm_cell"
    forget_bias = 0.5 if "0.5" in label else 1.0
    layer, weights = rnn_weights.from_checkpoint(ckpt, scope, forget_bias=forget_bias)
    assert layer == kind
    options = {"reset_after": False} if kind == "GRU" else {}
    out, h = _keras_run(kind, weights, **options)
    # Float32 rounding only: the forget bias is added once, not at every step.
    np.testing.assert_allclose(out, tf1_out, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(h, tf1_h, rtol=1e-5, atol=2e-6)


def _as_they_are(kind, values, scope):
    """The port that copies the TF1 arrays: split the kernel, nothing else."""
    if kind == "GRU":
        g, c = values[f"{scope}/gates/kernel"], values[f"{scope}/candidate/kernel"]
        kernel = np.concatenate([g, c], axis=1)
        bias = np.concatenate([values[f"{scope}/gates/bias"], values[f"{scope}/candidate/bias"]])
    else:
        kernel, bias = values[f"{scope}/kernel"], values[f"{scope}/bias"]
    return [kernel[:-UNITS], kernel[-UNITS:], bias]


@pytest.mark.parametrize(
    "label, scope, options",
    [
        ("BasicLSTMCell", "rnn/basic_lstm_cell", {}),
        ("GRUCell", "rnn/gru_cell", {"reset_after": False}),
    ],
)
def test_arrays_copied_as_they_are_give_other_numbers(label, scope, options):
    make, kind = CELLS[label]
    tf1_out, _, values = _tf1_run(make)
    naive, _ = _keras_run(kind, _as_they_are(kind, values, scope), **options)
    # Gate order (and the forget bias): no error, other numbers.
    assert np.abs(naive - tf1_out).max() > 0.05


def test_the_keras_gru_default_is_another_cell():
    _, _, values = _tf1_run(CELLS["GRUCell"][0])
    parts = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")
    weights = rnn_weights.keras_gru(*(values[f"rnn/gru_cell/{p}"] for p in parts))
    layer = tf.keras.layers.GRU(UNITS)  # reset_after=True: a [2, 3 * units] bias
    layer.build((None, STEPS, DEPTH))
    with pytest.raises(ValueError):
        layer.set_weights(weights)


def test_cells_keras_has_no_layer_for_are_refused_with_the_reason(tmp_path):
    ckpt = str(tmp_path / "peep.ckpt")
    _tf1_run(lambda: rnn_cell.LSTMCell(UNITS, use_peepholes=True, num_proj=3), save_to=ckpt)
    with pytest.raises(ValueError, match="w_f_diag and projection/kernel .*no LSTM layer.*tf2.rnn"):
        rnn_weights.from_checkpoint(ckpt, "rnn/lstm_cell")
    with pytest.raises(ValueError, match="not a default cell scope name; say which cell"):
        rnn_weights.from_checkpoint(ckpt, "rnn")
    with pytest.raises(ValueError, match=r"gates/kernel.* not in .*under rnn/lstm_cell/: \["):
        rnn_weights.from_checkpoint(ckpt, "rnn/lstm_cell", cell="gru")
