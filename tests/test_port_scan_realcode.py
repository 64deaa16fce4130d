"""What TensorFlow 2.21 does with constructs found in real TF1 programs (the MNIST tutorials,
tf-slim's model_deploy, BERT): the facts behind the scanner's unknown-name,
xent-positional and variable-op-type rules (docs/PORTING.md)."""

import inspect
import os
import types

import numpy as np
import pytest
import tensorflow as tf

from tests.test_port_scan import _upgrade
from tf1_train.port import api_names, paths, scan, scan_cli

v1 = tf.compat.v1
# Loaded lazily, matched by their own rules, or walked on their own (compat): not walked.
NOT_WALKED = ("keras", "estimator", "layers", "compat")


def _public_paths(module, path, seen, depth=0):
    """Every public attribute path reachable from a TensorFlow API module."""
    if id(module) in seen or depth > 5:
        return
    seen.add(id(module))
    try:
        names = dir(module)
    except ImportError:  # Keras-backed lazy modules (tf.losses, tf.metrics, ...)
        return
    for name in names:
        if name.startswith("_") or name in NOT_WALKED:
            continue
        try:
            value = getattr(module, name)
        except (AttributeError, ImportError):
            continue
        yield f"{path}.{name}"
        if isinstance(value, types.ModuleType):
            yield from _public_paths(value, f"{path}.{name}", seen, depth + 1)


def test_api_files_know_every_public_name_and_none_of_the_tf_0_names():
    found = [
        *_public_paths(tf, "tensorflow", set()),
        *_public_paths(v1, "tensorflow.compat.v1", set()),
    ]
    assert len(found) > 5000 and any(p.startswith("tensorflow.compat.v1.train.") for p in found)
    assert [p for p in found if api_names.missing(p)] == []
    for old in api_names.OLD_NAMES:
        short = old.rsplit(".", 1)
        for module in (tf, v1):
            parent = getattr(module, short[0]) if len(short) == 2 else module
            assert not hasattr(parent, short[-1]), old
        assert api_names.missing("tensorflow." + old) == "tf." + old
    with pytest.raises(ModuleNotFoundError):
        __import__("tensorflow.examples.tutorials.mnist")
    text, log = _upgrade("import tensorflow as tf\nw = tf.train.SummaryWriter('d')\n")
    assert "tf.train.SummaryWriter" in text and "SummaryWriter" not in log


def _xent(labels, logits):
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(labels * log_softmax).sum(axis=1)


def test_positional_cross_entropy_swaps_tf_0_logits_and_labels():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 3)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    # TF 0.x order: (logits, labels). TF 2.21 reads the first as labels.
    swapped = tf.nn.softmax_cross_entropy_with_logits(logits, labels).numpy()
    np.testing.assert_allclose(swapped, _xent(logits, labels), rtol=1e-5)
    assert not np.allclose(swapped, _xent(labels, logits))
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=logits)
        loss = tf.reduce_mean(v1.nn.softmax_cross_entropy_with_logits(w, labels))
        with pytest.raises(ValueError, match="No gradients provided"):
            v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    text, _ = _upgrade(
        "import tensorflow as tf\nd = tf.nn.softmax_cross_entropy_with_logits(y, t)\n"
    )
    assert "labels=tf.stop_gradient(y), logits=t" in text  # the swap kept, the logits frozen


def test_device_chooser_testing_variable_op_types_misses_resource_variables():
    def chooser(op):  # as tf-slim's model_deploy and tf_cnn_benchmarks wrote it for TF1
        if op.node_def.op.startswith("Variable") or op.type in ("Variable", "VariableV2"):
            return "/job:ps/task:0"
        return "/job:worker/task:0"

    with tf.Graph().as_default():
        with v1.device(chooser):
            var = v1.get_variable("w", [2])
        with v1.device(v1.train.replica_device_setter(ps_tasks=1)):
            shared = v1.get_variable("s", [2])
    assert var.op.type == "VarHandleOp"
    assert var.device == "/job:worker/task:0"
    assert shared.device == "/job:ps/task:0"
    ps_ops = ["Variable", "VariableV2", "AutoReloadVariable"]

    def assign_to_device(device, ps_device="/cpu:0"):  # the multi-GPU examples' towers
        def _assign(op):
            node_def = op if isinstance(op, tf.compat.v1.NodeDef) else op.node_def
            return ps_device if node_def.op in ps_ops else device

        return _assign

    with tf.Graph().as_default(), v1.device(assign_to_device("/gpu:1")):
        tower_var = v1.get_variable("t", [2])
    assert tower_var.device == "/gpu:1"  # not the CPU it names


def test_contrib_submodules_of_bert_and_nvidia_code_have_the_named_homes():
    assert "StagingArea" in paths.submodule_fix("tensorflow.contrib.staging.StagingArea")
    from tensorflow.python.ops.data_flow_ops import StagingArea

    with tf.Graph().as_default():
        area = StagingArea([tf.float32], shapes=[[2]])
        put, got = area.put([tf.constant([1.0, 2.0])]), area.get()
        with v1.Session() as sess:
            sess.run(put)
            np.testing.assert_array_equal(sess.run(got), [[1.0, 2.0]])  # a list of one
    assert "tf.distribute.cluster_resolver" in paths.submodule_fix(
        "tensorflow.contrib.cluster_resolver.TPUClusterResolver"
    )
    assert tf.distribute.cluster_resolver.TPUClusterResolver
    assert "signature_def[key]" in paths.submodule_fix("tensorflow.contrib.saved_model.x")
    assert not hasattr(v1.saved_model.signature_def_utils, "get_signature_def_by_key")


def _bilinear_rows(image, size, half_pixel):
    """Resize the rows of a [h, w] array by linear interpolation, TF1's or TF 2's sampling."""
    height = image.shape[0]
    scale = height / size
    out = np.arange(size, dtype=np.float64)
    src = (out + 0.5) * scale - 0.5 if half_pixel else out * scale
    src = np.clip(src, 0, height - 1)
    low = np.floor(src).astype(int)
    high = np.minimum(low + 1, height - 1)
    frac = (src - low)[:, None]
    return image[low] * (1 - frac) + image[high] * frac


def test_tf1_image_resize_was_resize_images_and_tf2s_samples_elsewhere():
    # NVIDIA's ConvNets preprocessing calls tf.image.resize under `import tensorflow as tf`.
    image = np.random.default_rng(1).normal(size=(4, 4)).astype(np.float32)
    assert v1.image.resize is v1.image.resize_images
    resizers = (v1.image.resize, tf.image.resize)
    for resize, half_pixel in ((v1.image.resize, False), (tf.image.resize, True)):
        got = resize(image[None, :, :, None], [6, 6]).numpy()[0, :, :, 0]
        rows = _bilinear_rows(image, 6, half_pixel)
        want = _bilinear_rows(rows.T, 6, half_pixel).T
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    small = image[None, :, :, None]  # nearest-neighbour by a whole factor: the same pixels
    for size, same in (([8, 8], True), ([6, 6], False)):
        old, new = (f(small, size, method="nearest").numpy() for f in resizers)
        assert np.array_equal(old, new) == same
    text, log = _upgrade("import tensorflow.compat.v1 as tf\ny = tf.image.resize(x, [6, 6])\n")
    assert text == "import tensorflow as tf\ny = tf.image.resize(x, [6, 6])\n"


def _default(cls, arg):
    return inspect.signature(cls.__init__).parameters[arg].default


@pytest.mark.parametrize(
    "name, arg, stat",
    [
        ("random_normal_initializer", "stddev", np.std),
        ("random_uniform_initializer", "minval", np.min),
    ],
)
def test_tf2_initializers_kept_v1_names_but_not_v1_defaults(name, arg, stat):
    new, old = getattr(tf, name), getattr(v1, name)
    assert _default(new, arg) != _default(old, arg)
    for cls in (new, old):
        sample = cls(seed=1)([20000]).numpy() if cls is new else _v1_sample(cls)
        assert stat(sample) == pytest.approx(_default(cls, arg), abs=0.02), cls
    with pytest.raises(TypeError, match="dtype"):
        new(dtype=tf.float32)


def _v1_sample(cls):
    with tf.Graph().as_default():
        var = v1.get_variable("w", [20000], initializer=cls(seed=1))
        with v1.Session() as sess:
            sess.run(var.initializer)
            return sess.run(var)


def test_tf2_embedding_lookup_splits_sharded_ids_div_wise_where_tf1_went_mod():
    table = np.random.default_rng(2).normal(size=(10, 2)).astype(np.float32)
    ids = np.array([0, 1, 2, 3, 4, 9])
    mod_shards = [table[k::3] for k in range(3)]  # row i in shard i % 3, as TF1's default
    div_shards = np.array_split(table, 3)  # contiguous rows, as TF 2 reads them
    v1_rows = v1.nn.embedding_lookup(mod_shards, ids).numpy()
    np.testing.assert_array_equal(v1_rows, table[ids])
    np.testing.assert_array_equal(tf.nn.embedding_lookup(div_shards, ids).numpy(), table[ids])
    tf2_rows = tf.nn.embedding_lookup(mod_shards, ids).numpy()
    assert not np.array_equal(tf2_rows, table[ids])


def test_tf2_in_top_k_takes_targets_first():
    logits = np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1]], dtype=np.float32)
    labels = np.array([1, 2])
    want = logits[np.arange(2), labels] >= logits.max(axis=1)
    np.testing.assert_array_equal(v1.nn.in_top_k(logits, labels, 1).numpy(), want)
    np.testing.assert_array_equal(tf.math.in_top_k(labels, logits, 1).numpy(), want)
    with pytest.raises(tf.errors.InvalidArgumentError):  # a wrong dtype or rank
        tf.nn.in_top_k(logits, labels, 1)  # the TF1 order
    text, _ = _upgrade("import tensorflow as tf\nc = tf.nn.in_top_k(logits, labels, 1)\n")
    assert "in_top_k(predictions=logits, targets=labels, k=1)" in text


def test_tf_0_concat_and_split_take_the_axis_last_since_tf_1(tmp_path):
    """openai/improved-gan's ``tf.concat(3, [h0, h0z])``: an error about a rank, and the
    scanner's fix computes what TF 0.x did."""
    a, b = tf.ones((2, 3)), tf.zeros((2, 3))
    with pytest.raises(ValueError, match="must have rank 0"):
        tf.concat(1, [a, b])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.split(1, 3, a)
    source = "import tensorflow as tf\nc = tf.concat(1, [a, b])\nd = tf.split(1, 3, a)\n"
    (tmp_path / "prog.py").write_text(source)
    found = scan.scan([str(tmp_path)]).findings
    fixes = [f.fix.split(":")[0] for f in found if f.rule == "tf0-concat-split-order"]
    assert fixes == ["tf.concat([a, b], 1)", "tf.split(a, 3, 1)"]
    np.testing.assert_array_equal(eval(fixes[0]), np.concatenate([a, b], 1))
    assert [x.shape for x in eval(fixes[1])] == [(2, 1)] * 3
    assert _upgrade(source)[0] == source  # tf_upgrade_v2 leaves both as they are


LAYERS_USE = (
    "import tensorflow.compat.v1 as tf\nnet = tf.layers.conv2d(x, 8, 3)\n"
    "cell = tf.nn.rnn_cell.LSTMCell(8)\n"
)


@pytest.mark.parametrize(
    "install, severity",
    [
        ("import tf1_train.compat\ntf1_train.compat.install()\n", "works"),
        ("from tf1_train import compat\ncompat.install()\n", "works"),
        ("from tf1_train.compat import install as fix\nfix()\n", "works"),
        ("import tf1_train.compat\n", "breaks"),  # imported, never called
        ("def install():\n    pass\ninstall()\n", "breaks"),  # someone else's install
    ],
)
def test_a_program_that_calls_compat_install_has_working_legacy_layers(tmp_path, install, severity):
    # the fix the scan gives for tf.layers (and slim.batch_norm) applied: a rescan says so
    (tmp_path / "model.py").write_text(install + "import other\n" + LAYERS_USE)
    (tmp_path / "other.py").write_text(LAYERS_USE)  # install() is process-wide
    (tmp_path / "script.py").write_text(LAYERS_USE)  # a program of its own: no install()
    report = scan.scan([str(tmp_path)])
    for rule in ("layers", "rnn-cell"):
        found = sorted((os.path.basename(f.file), f.severity) for f in report.findings
                       if f.rule == rule)  # fmt: skip
        assert found == [("model.py", severity), ("other.py", severity), ("script.py", "breaks")]
    assert scan_cli.exit_status(report) == 1


SLIM_TRAINER = """import numpy as np
import tensorflow.compat.v1 as tf
import tf_slim as slim
from tensorflow.contrib import quantize as contrib_quantize

SIZE = np.int(8)

def main(_):
    with tf.Graph().as_default():
        net = slim.batch_norm(images, is_training=True)
        if FLAGS.quantize_delay >= 0:
            contrib_quantize.create_training_graph(quant_delay=FLAGS.quantize_delay)
        slim.learning.train(train_op, FLAGS.train_dir)
        image = slim.tfexample_decoder.Image(shape=[32, 32, 3])
"""


@pytest.mark.parametrize("compat", [False, True])
def test_compat_option_scans_the_program_as_python_m_tf1_train_compat_runs_it(tmp_path, compat):
    # What running tensorflow/models' TF-slim trainer showed: through the compat
    # entry point only the contrib call behind its flag still breaks.
    (tmp_path / "train.py").write_text(SLIM_TRAINER)
    report = scan.scan([str(tmp_path)], compat=compat)
    found = {(f.line, f.rule): f.severity for f in report.findings}
    fixed = "works" if compat else "breaks"
    assert found[(4, "contrib")] == fixed  # the import
    assert found[(6, "numpy-builtin-alias")] == fixed
    assert found[(10, "slim-batch-norm")] == fixed
    assert ((13, "supervisor-eager") in found) is not compat
    assert found[(14, "slim-moved-names")] == fixed
    assert found[(12, "contrib")] == "breaks"  # the call behind --quantize_delay


CONTRIB_RNN = """import tensorflow.compat.v1 as tf
from tensorflow.contrib import rnn
from tensorflow.contrib.quantize import create_training_graph
from tensorflow.contrib.rnn import GRUCell

cell = rnn.BasicLSTMCell(8)
block = rnn.GridLSTMCell(8)
gru = GRUCell(8)
fused = rnn.LSTMBlockFusedCell(8)
"""


@pytest.mark.parametrize("compat", [False, True])
def test_contrib_rnn_core_cells_work_through_compat_and_its_own_cells_still_break(tmp_path, compat):
    # The TF1 RNN tutorials' `from tensorflow.contrib import rnn`: install() keeps
    # the core cells it re-exported and the fused cells (LSTMBlockFusedCell);
    # GridLSTMCell and a from-import of a placeholder's name
    # (ImportError at run time) still break.
    (tmp_path / "prog.py").write_text(CONTRIB_RNN)
    report = scan.scan([str(tmp_path)], compat=compat)
    lines = {(f.line, f.rule): f.severity for f in report.findings}
    works = "works" if compat else "breaks"
    # `works` is reported once per file and rule: lines 4, 8 and 9 then fold
    # into lines 2 and 6; without compat each line breaks on its own.
    again = {} if compat else {(4, "contrib"): "breaks", (8, "rnn-cell"): "breaks",
                               (9, "rnn-cell"): "breaks"}  # fmt: skip
    assert lines == {
        (2, "contrib"): works,
        (3, "contrib"): "breaks",
        (6, "rnn-cell"): works,
        (7, "contrib"): "breaks",
        **again,
    }


def test_a_ragged_numpy_array_raises_and_dtype_object_keeps_it():
    # cnn-text-classification-tf's batch_iter: np.array(list(zip(x, y))) of word
    # ids and one-hot labels; NumPy 1.24 made it an error (docs/PORTING.md row).
    pairs = list(zip(np.zeros((4, 56), np.int64), np.eye(2)[[0, 1, 0, 1]]))
    with pytest.raises(ValueError, match="inhomogeneous"):
        np.array(pairs)
    kept = np.array(pairs, dtype=object)
    assert kept.shape == (4, 2) and kept[1, 1].tolist() == [0.0, 1.0]
