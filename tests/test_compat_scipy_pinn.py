"""A physics-informed network trained by ``tf.contrib.opt.ScipyOptimizerInterface``
(tests/legacy_scripts/pinn_lbfgs_style.py, as the PINN code of 2017-19 was
written), run unmodified through ``python -m tf1_train.compat --v1``, held to
TensorFlow 1.15.5 itself (tests/goldens/pinn_lbfgs_tf115.npz from
scripts/make_pinn_goldens.py), and its TF 2 port on
``tf1_train.tf2.scipy_optimizer.ScipyMinimizer`` held to the TF 1 program.

What can be equal is: the first evaluation's loss and gradient (float32
rounding: measured 6e-8 and 4.5e-8 against TF 1.15.5, 0 and 4.5e-8 between
the program and its port) and SciPy's path while round-off is below what
L-BFGS-B's curvature pairs amplify (the first 12 evaluations within 4e-7
relative, measured). After that the paths part as two runs of L-BFGS-B on
different kernels do: after 40 iterations the losses are 0.2% apart
(0.09873 on TF 1.15.5, 0.09854 under compat, 0.09832 for the port).
"""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script

SCRIPTS = os.path.join(ROOT, "tests", "legacy_scripts")
GOLDEN = os.path.join(ROOT, "tests", "goldens", "pinn_lbfgs_tf115.npz")
v1 = tf.compat.v1


def _tf1_program(tmp_path) -> dict:
    saved = tmp_path / "tf1.npz"
    run_legacy_script(
        "--v1", tmp_path, os.path.join(SCRIPTS, "pinn_lbfgs_style.py"), "--save", saved
    )
    with np.load(saved) as f:
        return {k: f[k] for k in f.files}


def _tf2_port(tmp_path) -> dict:
    saved = tmp_path / "tf2.npz"
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    script = os.path.join(SCRIPTS, "pinn_lbfgs_style_tf2.py")
    out = subprocess.run([sys.executable, script, "--save", str(saved)], env=env,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    with np.load(saved) as f:
        return {k: f[k] for k in f.files}


def _same_start_and_path(got: dict, want: dict) -> None:
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-6)
    for k in range(8):
        np.testing.assert_allclose(got[f"grad_{k}"], want[f"grad_{k}"], rtol=1e-5, atol=2e-7)
    assert len(got["losses"]) > 40 and len(want["losses"]) > 40
    np.testing.assert_allclose(got["losses"][:12], want["losses"][:12], rtol=1e-5)
    np.testing.assert_allclose(got["losses"][-1], want["losses"][-1], rtol=1e-2)
    assert got["losses"][-1] < 0.4 * got["losses"][0]  # it trained


@pytest.fixture(scope="module")
def tf1_run(tmp_path_factory) -> dict:
    return _tf1_program(tmp_path_factory.mktemp("pinn"))


def test_the_program_starts_where_tf_1_15_5_did_and_follows_its_lbfgs_path(tf1_run):
    with np.load(GOLDEN) as f:
        golden = {k: f[k] for k in f.files}
    assert str(golden.pop("version")) == "1.15.5"
    _same_start_and_path(tf1_run, golden)


def test_the_tf2_port_on_scipy_minimizer_follows_the_tf1_program(tf1_run, tmp_path):
    _same_start_and_path(_tf2_port(tmp_path), tf1_run)


def test_tf1s_way_of_evaluating_a_point_would_stop_lbfgs_at_once():
    """TF 1.15 fed each point to the variables. On resource variables the
    feed is ignored (without install(), whose fed variables' reads take the
    feed: _variable_feeds.py): every point gives the starting loss and
    gradient, the line search fails, and the variables stay where they were,
    without an error. The compat interface assigns the point instead."""
    from tf1_train.compat._contrib_opt import ScipyOptimizerInterface

    class FeedingInterface(ScipyOptimizerInterface):
        def _evaluator(self, session, feed_dict, fetches):
            def evaluate(tensors, callback=None):
                def at(x):
                    feed = {
                        v: x[s].reshape(v.shape) for v, s in zip(self._vars, self._packing_slices)
                    }
                    values = session.run(tensors + fetches, feed_dict={**feed, **feed_dict})
                    if callback:
                        callback(*values[len(tensors) :])
                    return values[: len(tensors)]

                return at

            return evaluate

    results = {}
    for kind in (FeedingInterface, ScipyOptimizerInterface):
        with tf.Graph().as_default():
            w = v1.get_variable("w", initializer=[3.0, -4.0])
            loss = tf.reduce_sum(tf.square(w - 1.0))
            seen = []
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                kind(loss, options={"maxiter": 20}).minimize(
                    sess, fetches=[loss], loss_callback=seen.append
                )
                results[kind.__name__] = (set(seen), sess.run(w))
    fed_losses, fed_w = results["FeedingInterface"]
    assert fed_losses == {np.float32(29.0)}  # every point "evaluated" at the start
    np.testing.assert_array_equal(fed_w, [3.0, -4.0])  # and nothing moved
    losses, w = results["ScipyOptimizerInterface"]
    assert len(losses) > 2
    np.testing.assert_allclose(w, [1.0, 1.0], atol=1e-4)
