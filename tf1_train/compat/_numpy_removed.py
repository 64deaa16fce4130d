"""NumPy names TF1-era programs read that NumPy 2 removed (TensorFlow 2.21
comes with NumPy 2): ``np.float_``, ``np.string_``, ``np.NaN``,
``np.asscalar(x)``, ``np.product``, ``np.bool8``, ... Each raised
``AttributeError`` where the program had run for years. ``install()`` puts
each back as the object NumPy 1.x had under that name (``np.float_`` was
``np.float64``, ``np.product`` computed ``np.prod``), so nothing computes
differently; the scanner reports each use (tf1_train/port/numpy_rules.py)
with the spelling that needs no install().

What cannot be put back by a name stays a scanner finding:
``ndarray.tostring()``, ``itemset``, ``np.fromstring``'s binary mode and
``np.reshape(..., newshape=)`` changed on NumPy's own objects.
"""

from __future__ import annotations

import numpy as np


def _asscalar(a):
    return a.item()


def _in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    return np.isin(ar1, ar2, assume_unique=assume_unique, invert=invert, kind=kind).ravel()


def _msort(a):
    return np.sort(a, axis=0)


def _asfarray(a, dtype=np.double):
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.float64
    return np.asarray(a, dtype=dtype)


_OWN = {"asscalar": _asscalar, "in1d": _in1d, "msort": _msort, "asfarray": _asfarray}
# name: what it is written as today (an attribute of NumPy, or one of _OWN's)
RESTORED = {
    "float_": "np.float64", "complex_": "np.complex128", "cfloat": "np.complex128",
    "singlecomplex": "np.complex64", "longfloat": "np.longdouble",
    "longcomplex": "np.clongdouble", "clongfloat": "np.clongdouble",
    "string_": "np.bytes_", "unicode_": "np.str_", "bool8": "np.bool_", "int0": "np.intp",
    "uint0": "np.uintp", "object0": "np.object_", "str0": "np.str_", "bytes0": "np.bytes_",
    "void0": "np.void", "NaN": "np.nan", "Inf": "np.inf", "Infinity": "np.inf",
    "infty": "np.inf", "PINF": "np.inf", "NINF": "-np.inf", "PZERO": "0.0", "NZERO": "-0.0",
    "alltrue": "np.all", "sometrue": "np.any", "product": "np.prod", "cumproduct": "np.cumprod",
    "round_": "np.round", "trapz": "np.trapezoid", "mat": "np.asmatrix",
    "issubclass_": "issubclass", "asscalar": "a.item()",
    "in1d": "np.isin(ar1, ar2).ravel()", "msort": "np.sort(a, axis=0)",
    "asfarray": "np.asarray(a, dtype=float)",
}  # fmt: skip


def value(name: str):
    """What ``np.<name>`` was on NumPy 1.x, from today's NumPy."""
    if name in _OWN:
        return _OWN[name]
    text = RESTORED[name]
    if text in ("0.0", "-0.0"):
        return float(text)
    if text == "-np.inf":
        return -np.inf
    if text == "issubclass":
        return issubclass
    return getattr(np, text[len("np.") :])


def missing() -> list:
    """The names of RESTORED this NumPy lacks (install() puts back those only)."""
    return [name for name in RESTORED if name not in np.__dict__ and not hasattr(np, name)]
