"""``scipy.signal.lfilter`` of an object array, after install(): SciPy 1.17
removed it (deprecated in 1.15), and it is the discount of TF1-era
reinforcement learning code.

openai's universe-starter-agent and the A3C code bases copied from it
discount rewards with ``lfilter([1], [1, -gamma], x[::-1], axis=0)[::-1]``
over ``np.asarray(rollout.rewards + [rollout.r])``, whose last element is a
one-element array: NumPy 1.x made that an object array (so does
_numpy_ragged.py after install()), and SciPy 1.2 filtered it element by
element with Python's arithmetic. SciPy 1.17 raises ``NotImplementedError:
input type 'object' not supported``.

install() makes ``scipy.signal.lfilter`` filter such an array as SciPy 1.x
did when called without ``zi``: the transposed direct form II, each output
``b[0] * x / a[0] + z[0]``, each delay ``x * b[i] / a[0] + z[i] - y * a[i] /
a[0]``, the coefficients padded with zeros to one length, every operation the
elements' own (so a float stays a float, a one-element array an array). The
result equals SciPy 1.2.3's (measured: tests/test_compat_numpy_ragged.py).
The first such call prints one ``note:`` line.
"""

from __future__ import annotations

import functools
import sys
from typing import Callable

import numpy as np

NOTE = (
    "note: scipy.signal.lfilter of an object array filtered element by element, as SciPy 1.x "
    "did (SciPy 1.17 removed it; an array of floats is filtered the same)"
)
_noted: list = []


def wrapped(original: Callable) -> Callable:
    """``original`` (scipy.signal.lfilter), with SciPy 1.x's object arrays."""
    if getattr(original, "_tf1_train_original", None) is not None:
        return original

    @functools.wraps(original)
    def lfilter(b, a, x, axis=-1, zi=None):
        try:
            return original(b, a, x, axis, zi)
        except NotImplementedError:
            x = np.asarray(x)
            if x.dtype != object or zi is not None:
                raise
        if not _noted:
            _noted.append(True)
            print(NOTE, file=sys.stderr)
        return _object_filter(b, a, x, axis)

    lfilter._tf1_train_original = original
    return lfilter


def _object_filter(b, a, x: np.ndarray, axis: int) -> np.ndarray:
    b = np.array(b, dtype=object).ravel()
    a = np.array(a, dtype=object).ravel()
    n = max(len(a), len(b))
    b = np.concatenate([b, np.zeros(n - len(b), dtype=object)])
    a = np.concatenate([a, np.zeros(n - len(a), dtype=object)])
    lines = np.moveaxis(x, axis, -1)
    y = np.empty(lines.shape, dtype=object)
    for index in np.ndindex(lines.shape[:-1]):
        for k, value in enumerate(_filter_line(b, a, lines[index])):
            y[index + (k,)] = value  # one by one: a list of arrays would be converted
    return np.moveaxis(y, -1, axis)


def _filter_line(b: np.ndarray, a: np.ndarray, x: np.ndarray) -> list:
    n, out = len(b), []
    z = [0] * (n - 1)
    for xk in x:
        if n == 1:
            out.append(xk * b[0] / a[0])
            continue
        yk = b[0] * xk / a[0] + z[0]
        for i in range(1, n - 1):
            z[i - 1] = xk * b[i] / a[0] + z[i] - yk * a[i] / a[0]
        z[n - 2] = xk * b[n - 1] / a[0] - yk * a[n - 1] / a[0]
        out.append(yk)
    return out
