"""Whole legacy TF-slim programs through ``python -m tf1_train.compat``: what
tensorflow/models' research/slim trainer needed beyond the legacy layers.

tests/legacy_scripts/slim_trainer_style.py does what that trainer does: a
``tensorflow.contrib.quantize`` import used only behind a flag, ``np.int``,
``slim.dataset_data_provider`` over TFRecords, graph building inside
``tf.Graph().as_default()`` without disabling eager execution, and
``slim.learning.train``. The in-process tests install() and uninstall()
around themselves, so the other test files see an untouched process.
"""

import ast
import importlib
import os
import pathlib

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

import tf1_train.compat

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "slim_trainer_style.py")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}


def _write_records(directory: pathlib.Path, count: int = 32) -> None:
    """8x8x3 ``raw`` images, class 1 brighter than class 0, in TF-slim's keys."""
    rng = np.random.RandomState(0)

    def feature(value):
        if isinstance(value, int):
            return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))

    with tf.io.TFRecordWriter(str(directory / "data.tfrecord")) as writer:
        for i in range(count):
            label = i % 2
            image = (rng.randint(0, 100, (8, 8, 3)) + 120 * label).astype(np.uint8)
            keys = {"image/encoded": image.tobytes(), "image/format": b"raw"}
            keys["image/class/label"] = label
            example = {k: feature(v) for k, v in keys.items()}
            writer.write(
                tf.train.Example(features=tf.train.Features(feature=example)).SerializeToString()
            )


def _run(tmp_path: pathlib.Path, *flags: str):
    _write_records(tmp_path)
    args = [SCRIPT, f"--dataset_dir={tmp_path}", f"--train_dir={tmp_path / 'train'}", *flags]
    return run_cli(args, module="tf1_train.compat", env=QUIET)


def test_a_slim_trainer_runs_unmodified_to_its_last_step(tmp_path):
    out = _run(tmp_path, "--max_number_of_steps=6")
    assert out.returncode == 0, out.stderr[-3000:]
    reader = tf.train.load_checkpoint(str(tmp_path / "train"))
    assert reader.get_tensor("global_step") == 6  # the Supervisor's threads ran in graph mode
    assert reader.get_variable_to_shape_map()["logits/weights"] == [192, 2]
    final = [line for line in out.stdout.splitlines() if line.startswith("final_loss=")]
    assert len(final) == 1 and np.isfinite(float(final[0].split("=")[1]))


def test_a_contrib_quantize_call_is_one_clear_error_not_skipped(tmp_path):
    out = _run(tmp_path, "--quantize_delay=0")
    assert out.returncode != 0
    assert "tensorflow.contrib.quantize.create_training_graph was removed with tf.contrib" in (
        out.stderr
    )
    assert not (tmp_path / "train").exists()


def test_contrib_placeholders_import_and_refuse_every_name(installed):
    quantize = importlib.import_module("tensorflow.contrib.quantize")
    with pytest.raises(AttributeError, match="create_eval_graph was removed with tf.contrib"):
        quantize.create_eval_graph()
    with pytest.raises(ImportError):  # try/except ImportError fallbacks still fall back
        exec("from tensorflow.contrib.training import batch_sequences_with_states", {})
    with pytest.raises(ImportError, match="GridLSTMCell"):
        exec("from tensorflow.contrib.rnn import GridLSTMCell", {})
    names = {}
    exec("from tensorflow.contrib.rnn import BasicLSTMCell, static_rnn", names)
    assert names["BasicLSTMCell"] is tf.compat.v1.nn.rnn_cell.BasicLSTMCell  # the core objects
    assert names["static_rnn"] is tf.compat.v1.nn.static_rnn
    with pytest.raises(ModuleNotFoundError):  # the submodules nothing serves
        importlib.import_module("tensorflow.contrib.tensor_forest")
    assert importlib.import_module("tensorflow.contrib.slim") is importlib.import_module("tf_slim")
    assert np.int is int and np.float is float and np.object is object


def test_uninstall_takes_the_placeholders_and_numpy_aliases_back():
    tf1_train.compat.install()
    tf1_train.compat.uninstall()
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorflow.contrib.quantize")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorflow.compat.v1.contrib.crf")
    assert not hasattr(tf, "contrib") and not hasattr(tf.compat.v1, "contrib")
    assert not hasattr(np, "int") and not hasattr(np, "float")


def _tensorflow_reads(path: pathlib.Path):
    """(module, attribute, line) for each ``alias.attribute`` a file reads
    from a module it imported from tensorflow."""
    tree = ast.parse(path.read_text())
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tensorflow"):
            aliases.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in aliases:
                yield aliases[node.value.id], node.attr, node.lineno


def test_every_tensorflow_name_tf_slim_reads_resolves_after_install(installed):
    slim_dir = pathlib.Path(importlib.import_module("tf_slim").__file__).parent
    missing = []
    for path in sorted(slim_dir.rglob("*.py")):
        if path.name.endswith("_test.py"):
            continue
        for module_name, attribute, line in _tensorflow_reads(path):
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue  # a class or function imported by name, not a module
            if not hasattr(module, attribute):
                missing.append(f"{path.relative_to(slim_dir)}:{line} {module_name}.{attribute}")
    assert not missing, missing


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"forget_bias": 0.0}, {"use_peephole": True, "cell_clip": 0.5}],
    ids=["default", "forget_bias", "peephole_clip"],
)  # fmt: skip
def test_lstm_block_cell_steps_as_tensorflows_own_kernel_on_lstm_cells_variables(installed, kwargs):
    # The PTB tutorial's `tf.contrib.rnn.LSTMBlockCell`: under dynamic_rnn it
    # makes LSTMCell's variables, and its outputs are those of TensorFlow's
    # own fused LSTMBlockCell op (still in 2.21) stepped on the same arrays.
    v1 = tf.compat.v1
    names = {}
    exec("from tensorflow.contrib.rnn import LSTMBlockCell", names)
    rng = np.random.RandomState(0)
    x = rng.randn(4, 7, 5).astype(np.float32)
    with tf.Graph().as_default():
        cell = names["LSTMBlockCell"](6, **kwargs)
        out, state = v1.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            w = {v.op.name: 0.5 * rng.randn(*v.shape).astype(np.float32)
                 for v in v1.global_variables()}  # fmt: skip
            for var in v1.global_variables():
                var.load(w[var.op.name], sess)
            want, final = sess.run([out, state])
    peep = ("w_i_diag", "w_f_diag", "w_o_diag") if kwargs.get("use_peephole") else ()
    assert sorted(w) == sorted(f"rnn/lstm_cell/{n}" for n in ("kernel", "bias", *peep))
    zero = np.zeros(6, np.float32)
    # the op's peephole inputs (wci, wcf, wco) are LSTMCell's w_i/f/o_diag
    diag = {f"wc{g}": w.get(f"rnn/lstm_cell/w_{g}_diag", zero) for g in "ifo"}
    cs = h = np.zeros((4, 6), np.float32)
    steps = []
    for t in range(7):
        r = tf.raw_ops.LSTMBlockCell(
            x=x[:, t], cs_prev=cs, h_prev=h, w=w["rnn/lstm_cell/kernel"],
            b=w["rnn/lstm_cell/bias"], forget_bias=kwargs.get("forget_bias", 1.0),
            cell_clip=kwargs.get("cell_clip", -1.0), use_peephole=bool(peep), **diag,
        )  # fmt: skip
        cs, h = r.cs.numpy(), r.h.numpy()
        steps.append(h)
    # Bit-identical: the cell runs the same kernel (BlockLSTM, one step).
    np.testing.assert_array_equal(np.stack(steps, 1), want)
    np.testing.assert_array_equal(cs, final.c)
