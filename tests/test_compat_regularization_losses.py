"""REGULARIZATION_LOSSES holds tensors again after tf1_train.compat.install(),
as on TF 1.x.

TensorFlow 2's ``get_variable(regularizer=...)`` puts a ``_LazyEvalTensor``
in the collection: not a ``tf.Tensor``, without ``ref()``, and making the
regularizer's ops anew at each use. A TF1 program that averages its losses
with ``ExponentialMovingAverage.apply`` over that collection (TensorFlow's
distributed Inception trainer) raised AttributeError. The expected numbers
and names are TensorFlow 1.15.5's own, from this very program.
"""

import numpy as np
import pytest
import tensorflow as tf

v1 = tf.compat.v1


def _average_of_the_regularization_loss():
    """A TF1 program's lines: the term's moving average, before and after w
    changes; (average, its op name, the collection's entries)."""
    with tf.Graph().as_default():
        w = v1.get_variable(
            "w", [3], initializer=v1.ones_initializer(),
            regularizer=lambda v: 0.5 * tf.reduce_sum(v * v),
        )  # fmt: skip
        terms = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        ema = v1.train.ExponentialMovingAverage(0.5)
        update = ema.apply(terms)
        average = ema.average(terms[0])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(update)
            sess.run(w.assign([2.0, 2.0, 2.0]))
            sess.run(update)
            return sess.run(average), average.op.name, terms


def test_averaging_the_collection_gives_tf_1_15s_number_and_name(installed):
    value, name, terms = _average_of_the_regularization_loss()
    assert value == pytest.approx(3.375)  # 0.5 * (0.5 * 1.5) + 0.5 * 6.0
    assert name == "w/Regularizer/mul_1/ExponentialMovingAverage"  # TF 1.15.5's
    assert all(isinstance(t, tf.Tensor) for t in terms)


def test_without_install_tensorflow_2_raises_on_it():
    with pytest.raises(AttributeError, match="_LazyEvalTensor' object has no attribute 'ref'"):
        _average_of_the_regularization_loss()


def test_a_term_made_in_a_while_loop_is_one_tensor_of_the_outer_graph(installed):
    with tf.Graph().as_default() as graph:
        x = tf.constant(np.ones([2, 5, 3], np.float32))
        with v1.variable_scope("rnn", regularizer=lambda v: 0.1 * tf.reduce_sum(v * v)):
            cell = v1.nn.rnn_cell.BasicLSTMCell(4)
            out, _ = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)  # the cell builds in the loop
        terms = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.graph for t in terms] == [graph, graph]
        ops_before = len(graph.get_operations())
        total = tf.reduce_sum(out) + tf.add_n(terms)
        added = [op.name for op in graph.get_operations()[ops_before:]]
        assert added and not [n for n in added if "/Regularizer/" in n]  # no regularizer anew
        grads = tf.gradients(total, v1.trainable_variables())
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            kernel, bias = sess.run(grads)
    assert kernel.shape == (7, 16) and bias.shape == (16,)


def _side_effect_regularizer_program():
    """A TF1 model's regularizer that also adds its loss to 'losses' and
    writes a summary (the CIFAR-10 tutorial's weight-decay idiom moved into
    the regularizer; polyaxon's tracked regularizers), on a plain, a
    partitioned and a reused variable; (calls, 'losses' names, summary
    names, the sum of 'losses')."""
    calls = []

    def decay(scale):
        def regularizer(w):
            calls.append(w.op.name)
            loss = tf.multiply(scale, tf.reduce_sum(tf.square(w)), name="decay")
            v1.add_to_collection("losses", loss)
            v1.summary.scalar("decay", loss)
            return loss

        return regularizer

    with tf.Graph().as_default():
        ones = v1.ones_initializer()
        with v1.variable_scope("net", initializer=ones, regularizer=decay(0.01)):
            v1.get_variable("w", [3, 2])
            v1.get_variable("p", [4, 3], partitioner=v1.fixed_size_partitioner(2))
        with v1.variable_scope("net", reuse=True, regularizer=decay(0.01)):
            v1.get_variable("w", [3, 2])
        regularization = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        total = tf.add_n(v1.get_collection("losses"))
        in_collection = [t.name for t in v1.get_collection("losses")]
        summaries = [t.name for t in v1.get_collection(v1.GraphKeys.SUMMARIES)]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            return calls, in_collection, summaries, sess.run(total), len(regularization)


def test_a_regularizer_runs_once_where_tf1_ran_it(installed):
    calls, in_collection, summaries, total, terms = _side_effect_regularizer_program()
    # TensorFlow 1.15.5 gives these for this very function:
    assert calls == ["net/w", "net/p/part_0", "net/p/part_1"]
    assert in_collection == [f"net/{v}/Regularizer/decay:0" for v in ("w", "p/part_0", "p/part_1")]
    assert summaries == [f"net/{v}/Regularizer/decay_1:0" for v in ("w", "p/part_0", "p/part_1")]
    assert total == pytest.approx(0.01 * (6 + 6 + 6)) and terms == 3


def test_without_install_tensorflow_2_runs_it_again_and_counts_its_loss_again():
    calls, in_collection, summaries, total, terms = _side_effect_regularizer_program()
    assert len(calls) > 3 and len(in_collection) > 3 and len(summaries) > 3
    assert total > 0.01 * 18 * 1.4 and terms == 3  # the weight decay 1.5-2x in 'losses'


@pytest.mark.parametrize("compat, severity", [(False, "changes numbers"), (True, "works")])
def test_the_scan_reports_such_a_regularizer_until_install_runs(tmp_path, compat, severity):
    from tf1_train.port import scan

    (tmp_path / "model.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "def decay(w):\n"
        "    loss = 0.01 * tf.reduce_sum(tf.square(w))\n"
        "    tf.add_to_collection('losses', loss)\n"
        "    return loss\n"
        "w = tf.get_variable('w', [3, 2], regularizer=decay)\n"
    )
    found = [f for f in scan.scan([str(tmp_path)], compat=compat).findings if f.line == 6]
    assert [(f.rule, f.severity) for f in found] == [("regularizer-side-effects", severity)]
