"""``Variable.initialized_value()`` on TensorFlow 2.21's resource variables,
before and after tf1_train.compat.install().

TF 1.x trainers accumulate gradients over several batches with one
non-trainable variable per trainable one, made as
``tf.Variable(tf.zeros_like(tv.initialized_value()), trainable=False)``, and
the TF 1.x variables guide made a variable from another's initial value with
``tf.Variable(w.initialized_value() * 2.0)``. TensorFlow 2.21 raises a bare
``NotImplementedError`` on both lines for the variables ``get_variable``
makes; after install() they build and compute TF 1.15's numbers (the
variable's value once initialized, its initial value before: one draw of a
random initializer, whichever initializer runs first).
"""

import json
import pathlib

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

v1 = tf.compat.v1
SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "grad_accum_style.py"
GOLDEN = pathlib.Path(ROOT) / "tests" / "goldens" / "grad_accum_tf115.json"


def _accumulating_program(steps: int = 3):
    """A TF1 trainer's lines: a random weight, a copy made from its
    initialized value, and gradients accumulated over ``steps`` batches into
    variables shaped by it; (w, copy, accumulated, each batch's gradient)."""
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        w = v1.get_variable("w", [4, 2], initializer=v1.random_normal_initializer())
        copy = v1.Variable(w.initialized_value() * 2.0, name="w2")
        x = v1.placeholder(tf.float32, [None, 4])
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
        tvs = v1.trainable_variables()
        accum = [v1.Variable(tf.zeros_like(tv.initialized_value()), trainable=False) for tv in tvs]
        (grad,) = tf.gradients(loss, [w])
        add = accum[0].assign_add(grad)
        batches = np.random.RandomState(0).normal(size=(steps, 5, 4)).astype(np.float32)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            grads = [sess.run([grad, add], {x: b})[0] for b in batches]
            return sess.run(w), sess.run(copy), sess.run(accum[0]), grads


def test_without_install_tensorflow_2_raises_on_both_lines():
    with pytest.raises(NotImplementedError):
        _accumulating_program()


def test_after_install_the_copy_is_the_same_draw_and_the_sum_accumulates(installed):
    w, copy, accumulated, grads = _accumulating_program()
    np.testing.assert_array_equal(copy, 2.0 * w)  # one draw, not a second one
    np.testing.assert_allclose(accumulated, np.sum(grads, axis=0), rtol=1e-6)
    assert accumulated.shape == (4, 2) and np.abs(accumulated).sum() > 0


def test_the_method_waits_for_nothing_and_reads_the_trained_value_later(installed):
    """Its value is the variable's once that is initialized: a variable made
    after training starts from the trained weight, as on TF 1.15."""
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        with v1.Session() as sess:
            sess.run(w.initializer)
            sess.run(w.assign([5.0, 7.0]))
            late = v1.Variable(w.initialized_value(), name="late")
            sess.run(late.initializer)
            np.testing.assert_array_equal(sess.run(late), [5.0, 7.0])


def test_a_gradient_accumulating_trainer_prints_what_tensorflow_1_15_5_printed():
    """tests/legacy_scripts/grad_accum_style.py as written, through
    ``python -m tf1_train.compat --v1``: TF 1.15.5's losses (it ran the
    script on its reference variables, scripts/make_grad_accum_goldens.py)."""
    out = run_cli(["--v1", str(SCRIPT)], module="tf1_train.compat",
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = dict(line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)
    golden = json.loads(GOLDEN.read_text())
    assert golden["tensorflow"] == "1.15.5" and sorted(got) == sorted(golden["printed"])
    for key, want in golden["printed"].items():
        np.testing.assert_allclose(float(got[key]), float(want), rtol=1e-6, err_msg=key)


@pytest.mark.parametrize("compat, severity", [(False, "breaks"), (True, "works")])
def test_the_scan_reports_the_call_until_install_runs(tmp_path, compat, severity):
    from tf1_train.port import scan

    (tmp_path / "train.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "tvs = tf.trainable_variables()\n"
        "accum = [tf.Variable(tf.zeros_like(v.initialized_value())) for v in tvs]\n"
    )
    found = [f for f in scan.scan([str(tmp_path)], compat=compat).findings if f.line == 3]
    assert [(f.rule, f.severity) for f in found] == [("initialized-value", severity)]


def _copies_of_weights(count: int = 8):
    """GPT-1's Adam (opt.py): ``m = tf.Variable(p * 0)`` for every parameter p,
    an initial value that reads another variable; (graph, ps, ms)."""
    graph = tf.Graph()
    with graph.as_default():
        init = v1.random_normal_initializer(stddev=0.02, seed=1)
        ps = [v1.get_variable(f"p{i}", [64, 64], initializer=init) for i in range(count)]
        ms = [v1.Variable(p * 0, trainable=False) for p in ps]
    return graph, ps, ms


def _guards(variable) -> bool:
    """Whether the variable's initializer tests another's initialization first."""
    ops, seen = [variable.initializer], set()
    while ops:
        op = ops.pop()
        if op.type == "VarIsInitializedOp":
            return True
        if op.name not in seen:
            seen.add(op.name)
            ops.extend(t.op for t in op.inputs)
    return False


def test_a_copy_of_a_weight_waits_for_its_initializer_as_on_tf_1_15(installed):
    """TF 1.15 read the weight in ``p * 0`` through ``p.initialized_value()``,
    so ``global_variables_initializer()`` ran its initializers in any order;
    TF 2.21 guards reference variables only, and GPT-1 stopped under --v1 at
    ``FailedPreconditionError: Could not find variable`` (5 runs of 5)."""
    for _ in range(5):
        graph, ps, ms = _copies_of_weights()
        assert all(_guards(m) for m in ms)
        with graph.as_default(), v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert not np.any(sess.run(ms)) and all(np.any(p) for p in sess.run(ps))


def test_without_install_the_copy_reads_the_weight_unguarded():
    _, _, ms = _copies_of_weights(1)
    assert not _guards(ms[0])
