"""A training graph TensorFlow 1.15.5 wrote (tests/goldens/tf115_meta_graph,
scripts/make_tf115_meta_graph.py: a convolution, a tf.layers batch norm in
training, Momentum), imported on TensorFlow 2.21 as old programs restore
their checkpoints: ``tf.train.import_meta_graph`` + ``restore``. Without
tf1_train.compat the import stops at the batch norm gradient's recorded
output shapes; after install() it predicts and trains on to TF 1.15.5's
numbers (its reference variables and v1 control flow included)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

import tf1_train.compat as compat

GOLDEN = os.path.join(ROOT, "tests", "goldens", "tf115_meta_graph")
PREFIX = os.path.join(GOLDEN, "model.ckpt")
v1 = tf.compat.v1


@pytest.fixture(scope="module")
def expected() -> dict:
    with open(os.path.join(GOLDEN, "expected.json")) as f:
        return json.load(f)


def _restore_and_train(expected: dict):
    feed = {"images:0": np.array(expected["images"], np.float32), "labels:0": expected["labels"]}
    with tf.Graph().as_default(), v1.Session() as sess:
        saver = v1.train.import_meta_graph(PREFIX + ".meta")
        saver.restore(sess, PREFIX)
        probs = sess.run("probs:0", feed)
        sess.run(v1.get_collection("train_op")[0], {**feed, "phase_train:0": True})
        return probs, sess.run("loss:0", feed)


def test_tensorflow_2_refuses_the_tf1_batch_norm_gradients_recorded_shapes(expected):
    assert expected["batch_norm_gradient_ops"] == ["FusedBatchNormGradV3"]
    assert not compat.is_installed()
    with pytest.raises(ValueError, match="_output_shapes attribute inconsistent"):
        _restore_and_train(expected)


def test_after_install_it_predicts_and_trains_on_to_tf_1_15_5s_numbers(installed, expected):
    probs, loss = _restore_and_train(expected)
    np.testing.assert_allclose(probs, expected["probs"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss, expected["loss_after_one_more_step"], rtol=1e-5)


def test_only_the_batch_norm_gradients_recorded_shapes_are_dropped(installed):
    from tensorflow.core.protobuf import meta_graph_pb2

    from tf1_train.compat._graph_import import without_tf1_batch_norm_shapes

    meta = meta_graph_pb2.MetaGraphDef()
    with open(PREFIX + ".meta", "rb") as f:
        meta.ParseFromString(f.read())
    fitted = without_tf1_batch_norm_shapes(meta.graph_def)
    kept = {n.name for n in fitted.node if "_output_shapes" in n.attr}
    gone = [n.op for n in meta.graph_def.node if "_output_shapes" in n.attr and n.name not in kept]
    assert len(kept) > 50 and gone == ["FusedBatchNormGradV3"] * 2  # both branches of its cond
    assert without_tf1_batch_norm_shapes(fitted) is fitted  # nothing left to drop: no copy


def test_a_program_restoring_through_its_meta_runs_under_python_m_compat(tmp_path, expected):
    (tmp_path / "restore.py").write_text(
        "import sys\nimport numpy as np\nimport tensorflow as tf\n"
        "prefix = sys.argv[1]\n"
        "with tf.Session() as sess:\n"
        "    saver = tf.train.import_meta_graph(prefix + '.meta')\n"
        "    saver.restore(sess, prefix)\n"
        f"    images = np.array({expected['images']!r}, np.float32)\n"
        "    probs = sess.run('probs:0', {'images:0': images})\n"
        "    print('probs = ' + ','.join(str(p) for p in probs.ravel()))\n"
    )
    out = run_cli(["--v1", str(tmp_path / "restore.py"), PREFIX], module="tf1_train.compat",
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    line = [s for s in out.stdout.splitlines() if s.startswith("probs = ")][0]
    probs = np.array(line.split(" = ")[1].split(","), np.float64)
    np.testing.assert_allclose(probs, np.ravel(expected["probs"]), rtol=1e-5, atol=1e-6)
