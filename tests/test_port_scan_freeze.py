"""The batch-norm fix of TF 1.x freeze scripts (facenet's freeze_graph.py,
TensorFlow issue 3628) on a tf-slim network with a placeholder is_training,
as facenet builds it: the TF1 rewrite matches nothing on resource variables
and the frozen graph raises when it runs; the rewrite the scan gives makes
a frozen graph that computes the session's numbers in both branches; the
scan reports the one and not the other."""

import numpy as np
import pytest
import tensorflow as tf

from tf1_train.port import scan

v1 = tf.compat.v1
TF1_FIX = """\
for node in gd.node:
    if node.op == 'RefSwitch':
        node.op = 'Switch'
        for index in range(len(node.input)):
            if 'moving_' in node.input[index]:
                node.input[index] = node.input[index] + '/read'
    elif node.op == 'AssignSub':
        node.op = 'Sub'
        if 'use_locking' in node.attr: del node.attr['use_locking']
"""
SCANS_FIX = """\
for node in [*gd.node, *(n for f in gd.library.function for n in f.node_def)]:
    if node.op in ('AssignSubVariableOp', 'AssignAddVariableOp'):
        node.op = 'NoOp'
        node.input[:] = [i for i in node.input if i.startswith('^')]
        node.attr.clear()
"""


def _freeze(rewrite: str):
    """(frozen GraphDef, images, {phase: the session's embeddings}) after 3
    training steps of a conv + slim batch_norm (decay 0.9, updates in place)."""
    import tf_slim as slim

    images = np.random.RandomState(0).rand(5, 8, 8, 3).astype(np.float32)
    with tf.Graph().as_default() as graph:
        x = v1.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        training = v1.placeholder(tf.bool, name="phase_train")
        params = {"decay": 0.9, "updates_collections": None, "is_training": training}
        net = slim.conv2d(x, 4, 3, normalizer_fn=slim.batch_norm, normalizer_params=params)
        out = tf.identity(tf.reduce_mean(net, [1, 2]), name="embeddings")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(3):
                sess.run(out, {x: images, training: True})
            want = {True: sess.run(out, {x: images, training: True})}  # one more update
            want[False] = sess.run(out, {x: images, training: False})
            gd = graph.as_graph_def()
            exec(rewrite, {"gd": gd})
            frozen = v1.graph_util.convert_variables_to_constants(sess, gd, ["embeddings"])
    return frozen, images, want


def _run_frozen(frozen, images, phase: bool):
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(frozen, name="")
        with v1.Session(graph=graph) as sess:
            return sess.run("embeddings:0", {"x:0": images, "phase_train:0": phase})


def test_the_tf1_fix_matches_nothing_and_the_frozen_graph_raises(installed):
    frozen, images, _ = _freeze(TF1_FIX)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type resource"):
        _run_frozen(frozen, images, False)


@pytest.mark.parametrize("phase", [False, True])
def test_the_scans_fix_freezes_a_graph_with_the_sessions_numbers(installed, phase):
    frozen, images, want = _freeze(SCANS_FIX)
    assert not any("Variable" in n.op for n in frozen.node)
    np.testing.assert_array_equal(_run_frozen(frozen, images, phase), want[phase])


def test_the_scan_reports_the_tf1_fix_and_not_the_scans(tmp_path):
    (tmp_path / "tf1.py").write_text(TF1_FIX)
    (tmp_path / "tf2.py").write_text(SCANS_FIX)
    found = scan.scan([str(tmp_path)]).findings
    lines = [(f.file.rsplit("/", 1)[-1], f.line) for f in found if f.rule == "freeze-ref-ops"]
    assert lines == [("tf1.py", 2), ("tf1.py", 7)]
