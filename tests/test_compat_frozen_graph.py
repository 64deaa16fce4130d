"""A graph frozen after install() leaves out its default-valued attributes
(tf1_train/compat/_frozen_graph.py), so a TF 1.x runtime loads it.

Measured 2026-12-07: a conv + batch norm + dense graph frozen through
``python -m tf1_train.compat --v1`` on TensorFlow 2.21 was refused by TF
1.15.5's importer (``NodeDef mentions attr 'exponential_avg_factor' not in
Op<name=FusedBatchNormV3...>``); frozen with this, TF 1.15.5 loaded it and
computed the session's outputs to 2e-6 (YOLOv3's frozen detector: its
predictions bit-identical to a graph TF 1.15.5 froze itself). Here: no
attribute equals its op's default, the two TF 1.15 did not know are gone,
and the frozen graph computes what the session did."""

import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script
from tensorflow.python.framework import op_def_registry

from tf1_train.compat import _frozen_graph

v1 = tf.compat.v1
# attributes TensorFlow added after 1.15 that TF 1.15.5's importer refuses
NEWER = {("FusedBatchNormV3", "exponential_avg_factor"), ("MatMul", "grad_a"), ("MatMul", "grad_b")}
# refused whatever their value too (and MatMul's grad_a, true in a training graph's gradients)
HINTS = {("VarHandleOp", "debug_name"), ("AssignVariableOp", "validate_shape")}


def _freeze(convert=None):
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 4, 4, 3], name="x")
        h = v1.layers.conv2d(x, 2, 3, kernel_initializer=v1.random_normal_initializer(seed=1))
        h = v1.layers.batch_normalization(h, training=False)
        seeded = v1.random_normal_initializer(seed=2)
        dense = v1.layers.dense(v1.layers.flatten(h), 2, kernel_initializer=seeded)
        y = tf.identity(dense, name="y")
        batch = np.linspace(-1, 1, 96).reshape(2, 4, 4, 3)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            frozen = v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["y"])
            return frozen, sess.run(y, {x: batch}), batch


def _defaults(node) -> set:
    op_def = op_def_registry.get(node.op)
    return {
        a.name
        for a in op_def.attr
        if a.HasField("default_value")
        and a.name in node.attr
        and node.attr[a.name] == a.default_value
    }


def _run(frozen, batch):
    with tf.Graph().as_default() as graph:
        v1.import_graph_def(frozen, name="")
        with v1.Session(graph=graph) as sess:
            return sess.run("y:0", {"x:0": batch})


@pytest.mark.usefixtures("installed")
def test_a_frozen_graph_leaves_out_default_attributes_and_computes_the_same():
    frozen, expected, batch = _freeze()
    assert {n.op for n in frozen.node} >= {"FusedBatchNormV3", "MatMul", "Conv2D"}
    assert all(not _defaults(n) for n in frozen.node)
    assert not {(n.op, a) for n in frozen.node for a in n.attr} & NEWER
    as_tensorflow_froze_it, _, _ = _freeze(
        v1.graph_util.convert_variables_to_constants._tf1_train_original
    )
    got = _run(frozen, batch)
    np.testing.assert_array_equal(got, _run(as_tensorflow_froze_it, batch))
    np.testing.assert_allclose(got, expected, atol=1e-5)  # constants folded: rounding


@pytest.mark.usefixtures("installed")
def test_the_attributes_tf_1_15_does_not_know_are_left_out_at_their_defaults():
    """Through ``python -m tf1_train.compat`` TensorFlow wrote them (measured
    above); a test process may not: they are set here as written there."""
    convert = v1.graph_util.convert_variables_to_constants._tf1_train_original
    frozen, _, _ = _freeze(convert)
    for node in frozen.node:
        for op, name in NEWER:
            if node.op == op:
                default = next(a for a in op_def_registry.get(op).attr if a.name == name)
                node.attr[name].CopyFrom(default.default_value)
    assert {(n.op, a) for n in frozen.node for a in n.attr} >= NEWER
    stripped = _frozen_graph.strip_default_attributes(frozen)
    assert not {(n.op, a) for n in stripped.node for a in n.attr} & NEWER


# what TensorFlow 1.15.5 printed for tests/legacy_scripts/retrain_style.py (2026-12-07)
RETRAIN_TF_1_15_5 = {"shapes": "() (2, 3, 4)", "ops": "Const Const Identity Identity Mul",
                     "live": "6.0", "frozen": "6.0"}  # fmt: skip


def test_tf_1_xs_retrain_script_draws_its_distortions_and_freezes_as_written(tmp_path):
    """TF 1.x's retrain.py reads ``tensor_shape.scalar`` and the private
    ``graph_util.convert_variables_to_constants``: put back, it runs as on 1.15.5."""
    script = os.path.join(ROOT, "tests", "legacy_scripts", "retrain_style.py")
    assert run_legacy_script("--v1", tmp_path, script) == RETRAIN_TF_1_15_5


def _saved_model(export_dir: str):
    """A trained dense layer saved with ``simple_save`` (Spinning Up's
    ``logger.setup_tf_saver``); its output on a batch."""
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        seeded = v1.random_normal_initializer(seed=3)
        y = tf.identity(v1.layers.dense(x, 2, kernel_initializer=seeded), name="y")
        step = v1.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.square(y)))
        batch = np.linspace(-1, 1, 6).reshape(2, 3)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(step, {x: batch})
            v1.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
            return sess.run(y, {x: batch}), batch


@pytest.mark.usefixtures("installed")
def test_a_saved_model_leaves_out_what_tf_1_15_refuses_and_loads_to_the_same_outputs(tmp_path):
    """Measured 2026-12-07: Spinning Up's ``tf1_save`` written on 2.21 was
    refused by TF 1.15.5 (``NodeDef mentions attr 'grad_a' not in
    Op<name=MatMul...>``, ``'debug_name'`` on ``VarHandleOp``); stripped so, TF
    1.15.5 loaded it and computed the same actions and values (to 2e-7)."""
    from tensorflow.core.protobuf import saved_model_pb2

    expected, batch = _saved_model(str(tmp_path / "m"))
    saved = saved_model_pb2.SavedModel()
    saved.ParseFromString((tmp_path / "m" / "saved_model.pb").read_bytes())
    nodes = [n for meta in saved.meta_graphs for n in meta.graph_def.node]
    assert {n.op for n in nodes} >= {"MatMul", "VarHandleOp", "AssignVariableOp"}
    assert not {(n.op, a) for n in nodes for a in n.attr} & (NEWER | HINTS)
    assert all(not _defaults(n) for n in nodes)
    with tf.Graph().as_default() as graph, v1.Session(graph=graph) as sess:
        v1.saved_model.loader.load(sess, ["serve"], str(tmp_path / "m"))
        np.testing.assert_array_equal(sess.run("y:0", {"x:0": batch}), expected)
