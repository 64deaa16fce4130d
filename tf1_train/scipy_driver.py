"""One call to ``scipy.optimize.minimize`` as TF 1.15's
``ScipyOptimizerInterface`` made it, shared by its compat version
(tf1_train/compat/_contrib_opt.py) and its TF2 twin
(tf1_train/tf2/scipy_optimizer.py), so the two hand SciPy the same
arguments and a port can be held to the original.

The arguments SciPy gets are TF 1.15's: the loss with its gradient
(``jac=True``), the step callback, the method (L-BFGS-B by default), the
constraints as ``{'type', 'fun', 'jac'}`` dicts and the packed bounds; the
caller's keywords may not set those. Values go to SciPy as float64 (the
starting point, the loss, gradients and constraints): TF 1.15 passed float32
ones, which SciPy 1.16's SLSQP refuses and which L-BFGS-B and SLSQP turned
into float64 themselves, so the numbers do not change.
"""

from __future__ import annotations

import logging
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

DEFAULT_METHOD = "L-BFGS-B"
Constraint = Tuple[Callable, Callable]  # (value of x, its gradient)


def minimize(loss_and_gradient: Callable, start: np.ndarray, equalities: Sequence[Constraint],
             inequalities: Sequence[Constraint], bounds: Optional[List], step_callback: Callable,
             optimizer_kwargs: Dict) -> np.ndarray:  # fmt: skip
    """SciPy's minimum of ``loss_and_gradient(x) -> (loss, gradient)`` from ``start``."""
    import scipy.optimize

    def doubles(func):
        return lambda x: np.asarray(func(x), np.float64)

    def loss_grad(x):
        loss, gradient = loss_and_gradient(x)
        return np.float64(loss), np.asarray(gradient, np.float64)

    kwargs = dict(optimizer_kwargs)
    method = kwargs.pop("method", DEFAULT_METHOD)
    constraints = [
        {"type": kind, "fun": doubles(f), "jac": doubles(g)}
        for kind, pairs in (("eq", equalities), ("ineq", inequalities))
        for f, g in pairs
    ]
    fixed = {"jac": True, "callback": step_callback, "method": method,
             "constraints": constraints, "bounds": bounds}  # fmt: skip
    for name in fixed:
        if name == "bounds" and name in kwargs:
            raise ValueError("Bounds must be set using the var_to_bounds argument")
        if name in kwargs:
            raise ValueError(
                f"Optimizer keyword arg '{name}' is set automatically and cannot be "
                "injected manually"
            )
    result = scipy.optimize.minimize(loss_grad, np.asarray(start, np.float64), **fixed, **kwargs)
    _log(result)
    return result["x"]


def packed_bounds(variables: Sequence, shapes: Sequence[tuple], var_to_bounds) -> Optional[List]:
    """SciPy's ``bounds`` (None without ``var_to_bounds``): a (low, high) pair
    per element of the packed vector, each variable's pair broadcast to its
    shape, unbounded where it has none. ``var_to_bounds``: a dict keyed by the
    variables (TF1 graphs) or by ``variable.ref()`` (eager TF 2 variables do
    not hash), or (variable, pair) tuples; matched by identity."""
    if var_to_bounds is None:
        return None
    given = var_to_bounds.items() if isinstance(var_to_bounds, dict) else var_to_bounds
    given = [(k.deref() if hasattr(k, "deref") else k, b) for k, b in given]
    low, high = [], []
    for var, shape in zip(variables, shapes):
        pair = next((b for k, b in given if k is var), (-np.inf, np.inf))
        low.extend(np.broadcast_to(pair[0], shape).flat)
        high.extend(np.broadcast_to(pair[1], shape).flat)
    return list(zip(low, high))


def slices(shapes: Sequence[tuple]) -> List[slice]:
    """Each variable's part of the packed vector, in order."""
    ends = np.cumsum([0] + [int(np.prod(s)) for s in shapes])
    return [slice(int(a), int(b)) for a, b in zip(ends[:-1], ends[1:])]


def _log(result) -> None:
    """TF 1.15's INFO line on TensorFlow's logger."""
    lines = ["Optimization terminated with:", "  Message: %s", "  Objective function value: %f"]
    args = [result.message, result.fun]
    for attribute, line in (("nit", "iterations"), ("nfev", "functions evaluations")):
        if hasattr(result, attribute):
            lines.append(f"  Number of {line}: %d")
            args.append(getattr(result, attribute))
    logging.getLogger("tensorflow").info("\n".join(lines), *args)
