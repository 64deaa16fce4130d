"""``tf.compat.v1.while_loop`` after install() packs its results as TF 1.x
did, in the body's structure (tf1_train/compat/_while_loop.py). TensorFlow
1.15.5 gave these five loops a tuple, the tensor, a list, a tuple holding a
dict and a TensorArray (measured 2026-12-07); TF 2's loops packed the first
four as their ``loop_vars``."""

import tensorflow as tf

v1 = tf.compat.v1


def _loops():
    def body(i, t):
        return i + 1, t.write(i, tf.cast(i, tf.float32))

    pair = v1.while_loop(lambda i, c: c < 10, lambda i, c: (i + c, c + 1), [0, 1])
    one = v1.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
    listed = v1.while_loop(lambda i, c: c < 3, lambda i, c: [i + c, c + 1], (0, 1))
    nested = v1.while_loop(
        lambda a, b: a < 3, lambda a, b: (a + 1, {"x": b["x"] * 2}), [0, {"x": tf.constant(1.0)}]
    )
    array = v1.while_loop(lambda i, t: i < 3, body, [0, tf.TensorArray(tf.float32, size=3)])
    return pair, one, listed, nested, array


def test_loops_pack_their_results_as_tf_1_15_5s_did(installed):
    with tf.Graph().as_default():
        pair, one, listed, nested, (end, array) = _loops()
        assert (type(pair), type(listed), type(nested)) == (tuple, list, tuple)
        assert isinstance(one, tf.Tensor) and isinstance(array, tf.TensorArray)
        with v1.Session() as sess:
            got = sess.run([pair + (tf.constant(7),), one, listed, nested, array.stack()])
    assert got[0] == (45, 10, 7) and got[1] == 10 and got[2] == [3, 3]
    assert got[3] == (3, {"x": 8.0}) and got[4].tolist() == [0.0, 1.0, 2.0]


def test_uninstall_gives_tensorflow_2s_packing_back():
    import tf1_train.compat

    tf1_train.compat.install()
    tf1_train.compat.uninstall()
    with tf.Graph().as_default():
        pair, *_ = _loops()
    assert type(pair) is list
