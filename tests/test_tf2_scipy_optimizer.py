"""``tf1_train.tf2.scipy_optimizer.ScipyMinimizer``, the TF2 twin of
``tf.contrib.opt.ScipyOptimizerInterface``, on the problems of
tests/contrib_opt_cases.py: the same SciPy call from the same start gives
the same evaluations, steps and result as the TF1 interface under
tf1_train.compat (and so as TensorFlow 1.15.5's, which that is held to)."""

import contrib_opt_cases as cases
import numpy as np
import pytest
import tensorflow as tf

from tf1_train.tf2.scipy_optimizer import ScipyMinimizer


def _variable(name, shape):
    return tf.Variable(cases.value_for(name, shape), name=name)


def _bounds_problem():
    a, c = _variable("a", [2, 3]), _variable("c", [3])

    def loss():
        return tf.reduce_sum(tf.square(a - 2.0)) + tf.reduce_sum(tf.square(c * a[0] - 1.0))

    return {"a": a, "c": c}, ScipyMinimizer(
        loss, [a], var_to_bounds={a.ref(): (-np.inf, [[1.0], [0.5]])}, options={"maxiter": 20}
    )


def _slsqp_problem():
    vector = _variable("vector", [3])
    return {"vector": vector}, ScipyMinimizer(
        lambda: tf.reduce_sum(tf.square(vector)) + tf.reduce_sum(vector),
        [vector],
        equalities=[lambda: vector[1] - 1.0],
        inequalities=[lambda: vector[0] - 0.25, lambda: 2.0 - vector[2] * vector[2]],
        method="SLSQP",
        options={"maxiter": 30},
    )


@pytest.mark.parametrize(
    "case, problem",
    [("scipy_bounds_and_var_list", _bounds_problem), ("scipy_slsqp_constraints", _slsqp_problem)],
)
def test_the_twin_evaluates_steps_and_ends_where_the_tf1_interface_does(installed, case, problem):
    tf1 = cases.CASES[case](_contrib_opt(), tf.compat.v1)
    variables, minimizer = problem()
    seen, steps = [], []
    minimizer.minimize(step_callback=lambda x: steps.append(np.array(x)), loss_callback=seen.append)
    np.testing.assert_allclose(seen, tf1["seen"], rtol=1e-6)
    np.testing.assert_allclose(np.array(steps), tf1["steps"], rtol=1e-6, atol=1e-7)
    for name, v in variables.items():
        np.testing.assert_allclose(v.numpy(), tf1[f"after/{name}"], rtol=1e-6, atol=1e-7)


def test_a_minimization_that_raises_puts_the_start_back():
    w = tf.Variable([3.0, 4.0])

    def stop(loss):
        if loss < 8.0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ScipyMinimizer(lambda: tf.reduce_sum(tf.square(w - 1.0)), [w]).minimize(loss_callback=stop)
    np.testing.assert_array_equal(w.numpy(), [3.0, 4.0])


def test_keywords_the_minimizer_sets_are_refused_as_tf1_refused_them():
    w = tf.Variable([3.0, 4.0])
    with pytest.raises(ValueError, match="'callback' is set automatically"):
        ScipyMinimizer(lambda: tf.reduce_sum(w), [w], callback=print).minimize()


def _contrib_opt():
    names = {}
    exec("from tensorflow.contrib import opt", names)
    return names["opt"]
