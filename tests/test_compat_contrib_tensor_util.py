"""``tensorflow.contrib.framework.python.framework.tensor_util`` and
``tf.contrib.framework.with_shape`` / ``with_same_shape`` after
tf1_train.compat.install() (tf-slim serves contrib.framework), held to what
TF 1.15.5 gave for the same lines (measured on TF 1.15.5, 2026-12-07)."""

import numpy as np
import pytest
import tensorflow as tf

pytest.importorskip("tf_slim")
v1 = tf.compat.v1


def test_shapes_sums_and_squeezes_are_tf_1_15_5s(installed):
    from tensorflow.contrib.framework.python.framework import tensor_util as tu

    fw = tf.contrib.framework
    assert fw.with_shape is tu.with_shape and tu.is_tensor(tf.constant(1.0))
    assert not tu.is_tensor(1.0)
    with tf.Graph().as_default():
        a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        p, q = v1.placeholder(tf.float32, [None, 3]), v1.placeholder(tf.float32, None)
        q2 = v1.placeholder(tf.float32, None)
        same = fw.with_same_shape(a, tf.ones([2, 3]))
        shaped, checked = fw.with_shape([2, 3], p), tu.with_shape(tf.constant([-1, 3]), q)
        total = tu.reduce_sum_n([a, 2 * a, tf.constant(1.5)])
        predictions, labels = tu.remove_squeezable_dimensions(tf.ones([4, 1]), tf.ones([4]))
        squeezed, _ = tu.remove_squeezable_dimensions(q2, tf.ones([4]))
        scalar = tu.assert_scalar_int(tf.constant(3))
        assert [str(t.shape) for t in (shaped, checked, predictions, labels)] == [
            "(2, 3)", "<unknown>", "(4,)", "(4,)"
        ]  # fmt: skip
        with pytest.raises(ValueError, match=r"Invalid shape for tensor Const:0, expected \[3 2\]"):
            fw.with_shape([3, 2], a)
        with pytest.raises(ValueError, match="Expected integer type for"):
            tu.assert_scalar_int(tf.constant(1.0))
        with pytest.raises(ValueError, match="No tensors provided."):
            tu.reduce_sum_n([])
        with v1.Session() as sess:
            feed = {p: np.ones([2, 3]), q: np.ones([7, 3]), q2: np.ones([4, 1])}
            fetched = [same, shaped, checked, total, predictions, scalar, squeezed]
            values = sess.run(fetched, feed)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[-1 3\] \[2 4\]"):
                sess.run(checked, {q: np.ones([2, 4])})
    got = [(np.shape(v), float(np.sum(v))) for v in values]
    assert got == [((2, 3), 6.0), ((2, 3), 6.0), ((7, 3), 21.0), ((), 46.5), ((4,), 4.0),
                   ((), 3.0), ((4,), 4.0)]  # fmt: skip
