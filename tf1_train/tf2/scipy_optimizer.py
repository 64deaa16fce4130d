"""TF2's ``ScipyOptimizerInterface``: SciPy's minimizers (L-BFGS-B, SLSQP,
...) over a TF2 program's variables, making the SciPy call the TF1 original
made (tf1_train/scipy_driver.py), so a port of a physics-informed network
or a style transfer can be held to its TF1 run.

TensorFlow 2 has no such interface, and ``tfp.optimizer.lbfgs_minimize`` is
another L-BFGS (its own line search and stopping rules: other iterates, other
results). Here SciPy picks each point as it did under TF1; a ``tf.function``
puts the point in the variables (rounded to their dtype as TF1's feed did)
and returns the loss and its gradient; the variables take the result at the
end and keep their values if the minimization raises.

    minimizer = ScipyMinimizer(loss_fn, model.trainable_variables,
                               method="L-BFGS-B", options={"maxiter": 50000})
    minimizer.minimize(loss_callback=print)

``loss_fn()`` returns the scalar loss from the current variables (a
``tf.GradientTape`` inside it for the derivatives a physics-informed loss
takes is fine); ``equalities`` / ``inequalities`` are functions of no
argument returning scalars held at zero / nonnegative (SLSQP);
``var_to_bounds`` maps ``variable.ref()`` (an eager variable does not hash)
to its ``(low, high)`` pair, each a number or an array broadcast to its
shape; ``[(variable, pair), ...]`` works too.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np
import tensorflow as tf

from tf1_train import scipy_driver


class ScipyMinimizer:
    """SciPy's minimum of ``loss_fn()`` over ``variables`` (in place)."""

    def __init__(self, loss_fn: Callable[[], tf.Tensor], variables: Sequence[tf.Variable],
                 equalities: Sequence[Callable] = (), inequalities: Sequence[Callable] = (),
                 var_to_bounds=None, **optimizer_kwargs):  # fmt: skip
        self._vars = list(variables)
        self._shapes = [tuple(int(d) for d in v.shape) for v in self._vars]
        self._slices = scipy_driver.slices(self._shapes)
        self._bounds = scipy_driver.packed_bounds(self._vars, self._shapes, var_to_bounds)
        self.optimizer_kwargs = optimizer_kwargs
        self._loss_and_gradient = self._at_point(loss_fn)
        self._constraints = [
            [self._at_point(f) for f in funcs] for funcs in (equalities, inequalities)
        ]

    def minimize(self, step_callback: Optional[Callable] = None,
                 loss_callback: Optional[Callable] = None) -> None:  # fmt: skip
        """Minimize; ``loss_callback(loss)`` at each evaluation,
        ``step_callback(x)`` with the packed float64 vector at each step."""
        start = np.concatenate([v.numpy().reshape(-1) for v in self._vars])

        def loss_and_gradient(x):
            loss, gradient = self._loss_and_gradient(*self._split(x))
            if loss_callback is not None:
                loss_callback(loss.numpy())
            return loss.numpy(), gradient.numpy()

        equalities, inequalities = [
            [(self._value(f), self._gradient(f)) for f in funcs] for funcs in self._constraints
        ]
        try:
            result = scipy_driver.minimize(
                loss_and_gradient, start, equalities, inequalities, self._bounds,
                step_callback or (lambda xk: None), self.optimizer_kwargs,
            )  # fmt: skip
        except BaseException:
            self._put(start)
            raise
        self._put(result)

    def _split(self, x) -> List[np.ndarray]:
        """The point as each variable's array, in its dtype (TF1 fed it so)."""
        x = np.asarray(x)
        return [
            x[s].reshape(shape).astype(v.dtype.as_numpy_dtype)
            for v, s, shape in zip(self._vars, self._slices, self._shapes)
        ]

    def _put(self, x) -> None:
        for v, value in zip(self._vars, self._split(x)):
            v.assign(value)

    def _at_point(self, fn: Callable) -> Callable:
        """A ``tf.function`` of the point's parts: ``fn()`` there and its
        gradient, packed (zeros for a variable it does not read)."""
        variables = self._vars

        @tf.function(autograph=False)
        def at(*values):
            for v, value in zip(variables, values):
                v.assign(value)
            with tf.GradientTape() as tape:
                out = fn()
            grads = tape.gradient(out, variables)
            flat = [
                tf.reshape(tf.zeros_like(v) if g is None else tf.convert_to_tensor(g), [-1])
                for v, g in zip(variables, grads)
            ]
            return out, tf.concat(flat, 0)

        return at

    def _value(self, at: Callable) -> Callable:
        return lambda x: [at(*self._split(x))[0].numpy()]

    def _gradient(self, at: Callable) -> Callable:
        return lambda x: [at(*self._split(x))[1].numpy()]
