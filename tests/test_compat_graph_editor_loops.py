"""tf.contrib.graph_editor on graphs with control flow, after install().

TensorFlow 2's ``cond`` and ``while_loop`` (the default, also in graph mode
and under ``python -m tf1_train.compat --v1``) are single ops naming their
branch and body functions: graph_replace recomputes through them. TF 1.x's
control flow (``disable_control_flow_v2()``) builds Switch/Merge ops, which
copy, and while loops that cycle through NextIteration, which TensorFlow
2.21 will not let a copy rebuild: refused in one line naming the loop.
"""

import pytest
import tensorflow as tf

v1 = tf.compat.v1


@pytest.fixture
def ge(installed):
    import tensorflow.contrib.graph_editor as graph_editor

    return graph_editor


@pytest.fixture
def control_flow_v1():
    v1.disable_control_flow_v2()
    yield
    v1.enable_control_flow_v2()


def _cond_and_loop():
    x = v1.placeholder(tf.float32, [], name="x")
    p = v1.placeholder(tf.bool, [], name="p")
    y = v1.cond(p, lambda: x * 2.0, lambda: x - 1.0) + 1.0
    _, total = v1.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + x), [0, 0.0])
    return x, p, y, total


def test_graph_replace_recomputes_through_tf2_cond_and_while_loop(ge):
    with tf.Graph().as_default():
        x, p, y, total = _cond_and_loop()
        x2 = v1.placeholder(tf.float32, [], name="x2")
        y2, total2 = ge.graph_replace([y, total], {x: x2})
        assert y2 is not y and total2 is not total
        with v1.Session() as sess:
            for flag, want in ((True, [3.0, 7.0, 4.0, 12.0]), (False, [1.0, 3.0, 4.0, 12.0])):
                got = sess.run([y, y2, total, total2], {x: 1.0, x2: 3.0, p: flag})
                assert got == pytest.approx(want)


def test_tf1_cond_copies_and_tf1_while_loop_is_one_line(ge, control_flow_v1):
    with tf.Graph().as_default() as g:
        x, p, y, total = _cond_and_loop()
        assert {"Switch", "Merge", "NextIteration"} <= {op.type for op in g.get_operations()}
        x2 = v1.placeholder(tf.float32, [], name="x2")
        y2 = ge.graph_replace(y, {x: x2})
        with v1.Session() as sess:
            assert sess.run([y, y2], {x: 1.0, x2: 3.0, p: True}) == pytest.approx([3.0, 7.0])
            assert sess.run([y, y2], {x: 1.0, x2: 3.0, p: False}) == pytest.approx([1.0, 3.0])
        with pytest.raises(ValueError, match=r"while/Merge.*TF 1.x while loop") as err:
            ge.graph_replace(total, {x: x2})
        assert "\n" not in str(err.value) and "disable_control_flow_v2" in str(err.value)
