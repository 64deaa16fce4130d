"""``tensorflow.contrib.opt`` after install(): SciPy's minimizers on a session,
the Adam family (_contrib_opt_adam.py), the optimizer wrappers
(_contrib_opt_wrappers.py: moving averages, variable clipping, multitask,
stale gradients), AddSign and PowerSign (_contrib_opt_sign.py) and LARS,
RegAdagrad and the global-step Adams (_contrib_opt_kernels.py), as TF 1.15
computed them.

``ScipyOptimizerInterface`` is why most TF1 code imported the module: every
copy of the physics-informed networks (PINNs) of 2017-19 and many neural
style transfers hand the loss to SciPy's L-BFGS-B through it. It packs the
variables into one float64 vector, lets ``scipy.optimize.minimize`` call
back for the loss and its gradient at each point SciPy picks, and assigns
the result at the end.

TF 1.15 evaluated a point by feeding it *to the variables*
(``feed_dict={var: value}``). That worked on TF 1.x's reference variables;
on the resource variables TensorFlow 2 makes, a fed variable is one read
among many and the loss reads others, so the feed is ignored without an
error: SciPy would see the same loss at every point and stop at once (its
line search fails), the variables left as they were. Here a point is
assigned to the variables before it is evaluated, which gives the numbers
the feed gave (the same float64 -> float32 rounding), and the starting
values are put back if the minimization raises, so as in TF 1.15 the
variables change only at the end. ``var_to_bounds``, equality and
inequality constraints (SLSQP), ``step_callback``, ``loss_callback`` with
its ``fetches`` and the ``Optimization terminated with:`` log line are TF
1.15's; SciPy itself is the installed one (its L-BFGS-B became C code in
SciPy 1.15, so a long run can part from an old SciPy's in the last bits).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
import tensorflow as tf

from tf1_train import scipy_driver
from tf1_train.compat._contrib_names import OPT_SCIPY_KEPT

v1 = tf.compat.v1


def resolve(name: str):
    """``tf.contrib.opt.<name>`` for a name of KEPT."""
    if name in OPT_SCIPY_KEPT:
        return globals()[name]
    from tf1_train.compat import (
        _contrib_opt_adam,
        _contrib_opt_elastic,
        _contrib_opt_kernels,
        _contrib_opt_model_average,
        _contrib_opt_sign,
        _contrib_opt_wrappers,
    )

    modules = (_contrib_opt_adam, _contrib_opt_kernels, _contrib_opt_sign, _contrib_opt_wrappers,
               _contrib_opt_elastic, _contrib_opt_model_average)  # fmt: skip
    return next(getattr(m, name) for m in modules if hasattr(m, name))


def _shape(variable) -> tuple:
    return tuple(int(d) for d in variable.shape)


def _pack(tensors: Sequence) -> Optional[tf.Tensor]:
    """One flat vector of ``tensors``, in order (None for none)."""
    if not tensors:
        return None
    flat = [tf.reshape(t, [-1]) for t in tensors]
    return flat[0] if len(flat) == 1 else tf.concat(flat, 0)


def _gradients(tensor, variables: Sequence) -> List:
    """Gradients of ``tensor``; zeros where it does not depend on a variable."""
    grads = tf.gradients(tensor, list(variables))
    return [tf.zeros_like(v) if g is None else g for v, g in zip(variables, grads)]


class ExternalOptimizerInterface:
    """Base class: a subclass's ``_minimize`` drives an external algorithm
    over the packed variables (TF 1.15's interface and arguments)."""

    def __init__(self, loss, var_list=None, equalities=None, inequalities=None,
                 var_to_bounds=None, **optimizer_kwargs):  # fmt: skip
        self._loss = loss
        self._equalities = list(equalities or [])
        self._inequalities = list(inequalities or [])
        self._vars = list(v1.trainable_variables() if var_list is None else var_list)
        shapes = [_shape(v) for v in self._vars]
        self._packed_bounds = scipy_driver.packed_bounds(self._vars, shapes, var_to_bounds)
        self._update_placeholders = [v1.placeholder(v.dtype.base_dtype) for v in self._vars]
        self._var_updates = [
            v.assign(tf.reshape(p, _shape(v)))
            for v, p in zip(self._vars, self._update_placeholders)
        ]
        self.optimizer_kwargs = optimizer_kwargs
        self._packed_var = _pack(self._vars)
        self._packed_loss_grad = _pack(_gradients(loss, self._vars))
        self._packed_equality_grads = [_pack(_gradients(e, self._vars)) for e in self._equalities]
        self._packed_inequality_grads = [
            _pack(_gradients(e, self._vars)) for e in self._inequalities
        ]
        self._packing_slices = scipy_driver.slices(shapes)

    def minimize(self, session=None, feed_dict=None, fetches=None, step_callback=None,
                 loss_callback=None, **run_kwargs) -> None:  # fmt: skip
        """Minimize the loss; the variables take the result at the end (and
        keep their values if the minimization raises). ``loss_callback`` gets
        the values of ``fetches`` at each evaluation, ``step_callback`` the
        packed vector at each step; ``run_kwargs`` go to the last assignment."""
        session = session or v1.get_default_session()
        evaluate = self._evaluator(session, dict(feed_dict or {}), list(fetches or []))
        start = session.run(self._packed_var)
        funcs = {
            "equality_funcs": [evaluate([t]) for t in self._equalities],
            "equality_grad_funcs": [evaluate([t]) for t in self._packed_equality_grads],
            "inequality_funcs": [evaluate([t]) for t in self._inequalities],
            "inequality_grad_funcs": [evaluate([t]) for t in self._packed_inequality_grads],
        }
        try:
            result = self._minimize(
                initial_val=start,
                loss_grad_func=evaluate([self._loss, self._packed_loss_grad], loss_callback),
                packed_bounds=self._packed_bounds,
                step_callback=step_callback or (lambda xk: None),
                optimizer_kwargs=self.optimizer_kwargs,
                **funcs,
            )
        except BaseException:
            self._assign(session, start)  # as TF 1.15, which had only fed the points
            raise
        self._assign(session, result, **run_kwargs)

    def _assign(self, session, packed, **run_kwargs) -> None:
        values = [packed[s].reshape(_shape(v)) for v, s in zip(self._vars, self._packing_slices)]
        feed = dict(zip(self._update_placeholders, values))
        session.run(self._var_updates, feed_dict=feed, **run_kwargs)

    def _evaluator(self, session, feed_dict: Dict, fetches: List) -> Callable:
        """``evaluate(tensors, callback)`` -> a function of the packed vector
        that puts it in the variables and returns the values of ``tensors``
        (TF 1.15 fed it to them: ignored on resource variables)."""

        def evaluate(tensors: List, callback: Optional[Callable] = None) -> Callable:
            def at(x):
                self._assign(session, np.asarray(x))
                values = session.run(tensors + fetches, feed_dict=feed_dict)
                if callable(callback):
                    callback(*values[len(tensors) :])
                return values[: len(tensors)]

            return at

        return evaluate

    def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs,
                  inequality_funcs, inequality_grad_funcs, packed_bounds, step_callback,
                  optimizer_kwargs):  # fmt: skip
        raise NotImplementedError(
            "To use ExternalOptimizerInterface, subclass from it and implement "
            "the _minimize() method."
        )


class ScipyOptimizerInterface(ExternalOptimizerInterface):
    """``scipy.optimize.minimize`` over the variables (L-BFGS-B by default)."""

    _DEFAULT_METHOD = scipy_driver.DEFAULT_METHOD

    def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs,
                  inequality_funcs, inequality_grad_funcs, packed_bounds, step_callback,
                  optimizer_kwargs):  # fmt: skip
        kwargs = {"method": self._DEFAULT_METHOD, **optimizer_kwargs}
        return scipy_driver.minimize(
            loss_grad_func, initial_val,
            list(zip(equality_funcs, equality_grad_funcs)),
            list(zip(inequality_funcs, inequality_grad_funcs)),
            packed_bounds, step_callback, kwargs,
        )  # fmt: skip
