"""A variable looked up by its tensor name (scan rule variable-tensor-name,
tf1_train/port/tensor_name_rules.py): in a graph built on TensorFlow 2,
``name:0`` is the resource variable's handle and ``sess.run`` returns its
bytes without an error; both fixes the scan gives return the weights, and
``--v1_variables`` makes ``name:0`` the value again, as on TF 1.x.
tests/test_compat_notebook.py holds a notebook doing this to TF 1.15.5."""

import numpy as np
import tensorflow as tf

from tf1_train.port import scan

KERNEL = [[1.0, 2.0], [3.0, -4.0]]


def _lookups(graph, session):
    by_name = session.run(graph.get_tensor_by_name("hidden/kernel:0"))
    found = [v for v in tf.compat.v1.global_variables() if v.name == "hidden/kernel:0"][0]
    read = graph.get_tensor_by_name("hidden/kernel/Read/ReadVariableOp:0")
    return by_name, session.run(found), session.run(read)


def test_the_name_gives_the_handle_and_the_scans_fixes_give_the_weights(installed):
    with tf.Graph().as_default() as graph:
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        init = tf.compat.v1.constant_initializer(KERNEL)
        tf.compat.v1.layers.dense(x, 2, name="hidden", kernel_initializer=init)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            by_name, found, read = _lookups(graph, session)
    assert by_name.dtype.names == ("resource",)  # the handle's bytes: no error, no weights
    np.testing.assert_array_equal(found, KERNEL)
    np.testing.assert_array_equal(read, KERNEL)


def test_the_scan_finds_layer_and_program_variable_names(tmp_path):
    program = tmp_path / "restore.py"
    program.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "W = tf.Variable(tf.zeros([4, 2]), name='W')\n"
        "g = tf.get_default_graph()\n"
        "w = sess.run(g.get_tensor_by_name('W:0'))\n"
        "k = g.get_tensor_by_name('conv1/weights:0')\n"
        "y = g.get_tensor_by_name('dense/BiasAdd:0')\n"
        "r = g.get_tensor_by_name('W/Read/ReadVariableOp:0')\n"
    )
    found = [f for f in scan.scan([str(program)]).findings if f.rule == "variable-tensor-name"]
    assert [(f.line, f.severity) for f in found] == [(4, "changes numbers"), (5, "changes numbers")]
    assert "get_tensor_by_name('W/Read/ReadVariableOp:0')" in found[0].fix
    fixed = scan.scan([str(program)], v1_variables=True).findings
    assert {f.severity for f in fixed if f.rule == "variable-tensor-name"} == {"works"}
