"""tf.contrib.opt after tf1_train.compat.install(), held to TensorFlow 1.15.5.

The programs of tests/contrib_opt_cases.py and contrib_opt_more_cases.py
must compute what TF 1.15.5 computed (tests/goldens/contrib_opt_tf115.npz,
from scripts/make_contrib_opt_goldens.py): the optimizers' losses, variables
and slots, and ScipyOptimizerInterface's evaluations, steps and result.
TF 1.15 evaluated SciPy's points by feeding them to the variables, which
TensorFlow 2's resource variables ignore; the tests below show both.
"""

import contrib_opt_cases as cases
import goldens_tf115
import numpy as np
import pytest
import tensorflow as tf

v1 = tf.compat.v1


@pytest.fixture(scope="module")
def golden() -> dict:
    return goldens_tf115.load("contrib_opt_tf115.npz")


def _opt():
    names = {}
    exec("from tensorflow.contrib import opt", names)  # as a user's module imports it
    return names["opt"]


def test_the_goldens_are_tf_1_15_5s_and_every_case_has_them(golden):
    assert str(golden["version"]) == "1.15.5"
    assert goldens_tf115.case_names(golden) == sorted(cases.CASES)


# L-BFGS-B carries round-off forward: the physics-informed loss at SciPy's
# second point is one float32 step apart on TF 1.15.5 and 2.21 (2.2831984 vs
# 2.2831986; their matmul and tanh kernels differ, oneDNN on or off), and
# after 25 iterations the weights are 3.2e-4 apart (the losses 1.2e-5).
# SciPy is not the cause: 1.14.1 (Fortran L-BFGS-B) and 1.17.1 (C) give the
# same. The steps before that rounding matters agree to 1e-7.
LOOSER = {"scipy_lbfgsb_pinn": {"seen": (5e-5, 1e-6), "steps": (0, 1e-3), "after/": (0, 1e-3)}}


def _tolerance(name: str, key: str) -> tuple:
    looser = LOOSER.get(name, {})
    return next((t for prefix, t in looser.items() if key.startswith(prefix)), (1e-5, 1e-6))


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_computes_what_tf_1_15_5_computed(installed, golden, name):
    arrays = cases.CASES[name](_opt(), v1)
    want = goldens_tf115.of_case(golden, name)
    goldens_tf115.assert_matches(arrays, want, lambda key: _tolerance(name, key))
    if name == "scipy_lbfgsb_pinn":
        np.testing.assert_allclose(arrays["steps"][:6], want["steps"][:6], rtol=0, atol=1e-6)


def test_decoupled_decay_in_one_run_is_what_tf_1_15_5_gave_when_the_gradient_came_first(
    installed, golden
):
    """TF 1.15's AdamW raced its decay against the step's reads when the loss
    and the update ran together (4 of 5 runs of this program differed there);
    here the decay waits for the gradient: one run per step gives the numbers
    TF 1.15.5 gave with the gradient computed in a run before the update."""
    one_run = cases._train(v1, lambda: _opt().AdamWOptimizer(0.01, learning_rate=0.05))
    for key, value in one_run.items():
        np.testing.assert_allclose(value, golden[f"adamw|{key}"], rtol=1e-6, atol=1e-7)


def test_the_swapping_saver_writes_each_average_under_its_variables_name(installed):
    arrays = cases.CASES["moving_average_swapping_saver"](_opt(), v1)
    for name in ("embedding", "dense/kernel", "dense/bias"):
        average = f"{name}/ExponentialMovingAverage"
        np.testing.assert_array_equal(arrays[f"saved/{name}"], arrays[f"after/{average}"])
        np.testing.assert_array_equal(arrays[f"saved/{average}"], arrays[f"after/{name}"])
        assert not np.array_equal(arrays[f"after/{name}"], arrays[f"after/{average}"])


def test_a_fed_resource_variable_is_ignored_so_points_are_assigned(installed):
    """Why ScipyOptimizerInterface assigns each point: on TF 2's resource
    variables a feed to the variable changes no read of it, silently; after
    install() it reaches the reads in the graph (_variable_feeds.py), not
    those inside a TF 2 loop or cond, which an assigned point reaches too."""
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=[3.0, 4.0])
        loss = tf.reduce_sum(tf.square(w))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert sess.run(loss, {w: np.zeros(2, np.float32)}) == 0.0  # fed zeros, as TF 1.x
            _opt().ScipyOptimizerInterface(loss, options={"maxiter": 10}).minimize(sess)
            assert sess.run(loss) < 1e-8


def test_a_minimization_that_raises_leaves_the_variables_as_they_were(installed):
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=[3.0, 4.0])
        interface = _opt().ScipyOptimizerInterface(tf.reduce_sum(tf.square(w - 1.0)))
        calls = []

        def stop(loss):
            calls.append(loss)
            if len(calls) == 3:
                raise KeyboardInterrupt

        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            with pytest.raises(KeyboardInterrupt):
                interface.minimize(sess, fetches=[interface._loss], loss_callback=stop)
            np.testing.assert_array_equal(sess.run(w), [3.0, 4.0])
            assert len(set(calls)) == 3  # three points, each evaluated where it was


def test_keywords_scipy_is_given_by_the_interface_are_refused_as_tf1_refused(installed):
    with tf.Graph().as_default():
        loss = tf.reduce_sum(tf.square(v1.get_variable("w", [2])))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for kwargs, message in [
                ({"bounds": [(0, 1)] * 2}, "Bounds must be set using the var_to_bounds"),
                ({"jac": False}, "'jac' is set automatically"),
            ]:
                with pytest.raises(ValueError, match=message):
                    _opt().ScipyOptimizerInterface(loss, **kwargs).minimize(sess)


def test_kept_names_are_served_and_the_others_say_what_replaced_them(installed):
    from tf1_train.compat import _contrib

    opt = _opt()
    for name in _contrib.OPT_KEPT:
        assert getattr(opt, name).__module__.startswith("tf1_train.compat._contrib_opt")
        assert _contrib.kept("opt", name)
    with pytest.raises(AttributeError, match="AGNOptimizer was removed with tf.contrib"):
        getattr(opt, "AGNOptimizer")  # noqa: B009
    with pytest.raises(ImportError):
        exec("from tensorflow.contrib.opt import ShampooOptimizer", {})
    assert not _contrib.kept("opt", "GGTOptimizer")


def test_adamw_decays_by_weight_decay_and_keras_adamw_by_its_product_with_the_rate(installed):
    """The porting trap: contrib's AdamW takes ``weight_decay * var`` per step,
    Keras's ``learning_rate * weight_decay * var``. With a zero gradient
    only the decay moves the variable."""
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=[1.0, -2.0])
        train = _opt().AdamWOptimizer(0.1, learning_rate=0.01).apply_gradients([(tf.zeros([2]), w)])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            contrib_w = sess.run(w)
    np.testing.assert_allclose(contrib_w, [0.9, -1.8], rtol=1e-6)
    np.testing.assert_allclose(_keras_adamw_step([1.0, -2.0], 0.1, 0.01), [0.999, -1.998], 1e-6)


def _keras_adamw_step(start, weight_decay, learning_rate):
    import subprocess
    import sys

    code = (
        f"import keras, numpy as np; w = keras.Variable(np.array({start!r}, 'float32')); "
        f"keras.optimizers.AdamW(learning_rate={learning_rate!r}, weight_decay={weight_decay!r})"
        ".apply_gradients([(np.zeros(2, 'float32'), w)]); print(list(map(float, w.numpy())))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return eval(out.stdout.strip().splitlines()[-1])


def test_on_tf1s_reference_variables_the_optimizers_compute_tf_1_15_5s_numbers(golden, tmp_path):
    """``--v1_variables``: TF 1.15's own reference-variable paths (sparse
    AddSign and PowerSign, LARS's momentum fallback, ...), as TF 1.15.5 ran them."""
    import contrib_opt_more_cases as more

    names = sorted(n for n in cases.CASES if cases.CASES[n].__module__ == more.__name__)
    got = goldens_tf115.run_on_reference_variables("contrib_opt_cases", "opt", names, tmp_path)
    assert sorted(got) == sorted(k for k in golden if k.split("|")[0] in names)
    for name in names:
        want = goldens_tf115.of_case(golden, name)
        goldens_tf115.assert_matches(goldens_tf115.of_case(got, name), want)


def test_the_python_training_paths_serve_each_modules_kept_names(installed):
    """``from tensorflow.contrib.opt.python.training import sign_decay``: the
    sign decays were public by that path only; other modules of the path
    serve the same objects as ``tf.contrib.opt``."""
    from tf1_train.compat import _contrib

    names = {}
    exec("from tensorflow.contrib.opt.python.training import sign_decay, powersign", names)
    exec("import tensorflow.contrib.opt.python.training.lars_optimizer as lars", names)
    assert callable(names["sign_decay"].get_restart_decay_fn)
    assert names["powersign"].PowerSignOptimizer is _opt().PowerSignOptimizer
    assert names["lars"].LARSOptimizer is _opt().LARSOptimizer
    with pytest.raises(AttributeError, match="serves this module's public names only"):
        names["powersign"]._private_helper  # noqa: B018
    with pytest.raises(ImportError):
        exec("from tensorflow.contrib.opt.python.training import ggt", {})
    assert _contrib.kept("opt", "python", "training", "sign_decay", "get_linear_decay_fn")
    assert not _contrib.kept("opt", "python", "training", "shampoo")
