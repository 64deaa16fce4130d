"""NumPy names TF1-era programs read that NumPy 2 removed (TensorFlow 2.21
comes with NumPy 2): ``np.float_``, ``np.string_``, ``np.NaN``,
``np.asscalar(x)``, ``np.product``, ``np.bool8``, ... Each raised
``AttributeError`` where the program had run for years. ``install()`` puts
each back as the object NumPy 1.x had under that name (``np.float_`` was
``np.float64``, ``np.product`` computed ``np.prod``), so nothing computes
differently; the scanner reports each use (tf1_train/port/numpy_rules.py)
with the spelling that needs no install().

NumPy 2 also emptied ``numpy.lib`` of the functions NumPy 1.x exported there
too: ``np.lib.pad`` was ``np.pad`` (Kyubyong's transformer pads its
sentences so) and now raises ``AttributeError``. install() puts back each
name ``numpy.lib`` had in NumPy 1.18 that was the top-level object of that
name, as that object (NumPy 2's own where it kept one, RESTORED's where it
did not: ``np.lib.asscalar``). Not put back: ``numpy.lib``'s submodules
(``numpy.lib.function_base``, ``arraypad``; NumPy 2 made them private and
says so) and what NumPy 2 has under no name (``np.lib.financial``'s ``pmt``).

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


class _Cast:
    """NumPy 1.x's ``np.cast``: ``np.cast[np.float32](x)`` was
    ``np.asarray(x).astype(np.float32)``, the key any type or dtype name
    (pixel-cnn's input scaling, OpenAI's weight-norm code)."""

    def __getitem__(self, key):
        kind = np.dtype(key).type
        return lambda x: np.asarray(x).astype(kind)

    def __repr__(self) -> str:
        return "np.cast (tf1_train.compat: NumPy 1.x's, as np.asarray(x).astype(T))"


def _asfarray(a, dtype=np.double):
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.float64
    return np.asarray(a, dtype=dtype)


# name: (how it is written today, what NumPy 1.x had under the name)
RESTORED = {
    "float_": ("np.float64", np.float64),
    "complex_": ("np.complex128", np.complex128),
    "cfloat": ("np.complex128", np.complex128),
    "singlecomplex": ("np.complex64", np.complex64),
    "longfloat": ("np.longdouble", np.longdouble),
    "longcomplex": ("np.clongdouble", np.clongdouble),
    "clongfloat": ("np.clongdouble", np.clongdouble),
    "string_": ("np.bytes_", np.bytes_),
    "unicode_": ("np.str_", np.str_),
    "bool8": ("np.bool_", np.bool_),
    "int0": ("np.intp", np.intp),
    "uint0": ("np.uintp", np.uintp),
    "object0": ("np.object_", np.object_),
    "str0": ("np.str_", np.str_),
    "bytes0": ("np.bytes_", np.bytes_),
    "void0": ("np.void", np.void),
    "NaN": ("np.nan", np.nan),
    "Inf": ("np.inf", np.inf),
    "Infinity": ("np.inf", np.inf),
    "infty": ("np.inf", np.inf),
    "PINF": ("np.inf", np.inf),
    "NINF": ("-np.inf", -np.inf),
    "PZERO": ("0.0", 0.0),
    "NZERO": ("-0.0", -0.0),
    "alltrue": ("np.all", np.all),
    "sometrue": ("np.any", np.any),
    "product": ("np.prod", np.prod),
    "cumproduct": ("np.cumprod", np.cumprod),
    "round_": ("np.round", np.round),
    "trapz": ("np.trapezoid", np.trapezoid),
    "mat": ("np.asmatrix", np.asmatrix),
    "issubclass_": ("issubclass", issubclass),
    "asscalar": ("a.item()", _asscalar),
    "in1d": ("np.isin(ar1, ar2).ravel()", _in1d),
    "msort": ("np.sort(a, axis=0)", _msort),
    "asfarray": ("np.asarray(a, dtype=float)", _asfarray),
    "cast": ("np.asarray(x).astype(T) for np.cast[T](x)", _Cast()),
}


def missing() -> list:
    """The names of RESTORED this NumPy lacks (install() puts back those only)."""
    return [name for name in RESTORED if name not in np.__dict__ and not hasattr(np, name)]


# numpy.lib's names that were the top-level object of that name in NumPy 1.18.5
# (``np.lib.pad is np.pad``) and that NumPy 2.4 keeps at the top level only:
# measured, dir(numpy.lib) under both.
LIB_ALIASES = tuple(
    """
    angle append apply_along_axis apply_over_axes array_split asarray_chkfinite average
    bartlett bincount blackman broadcast_arrays broadcast_to c_ column_stack common_type
    copy corrcoef cov delete diag diag_indices diag_indices_from diagflat diff digitize
    dsplit dstack ediff1d emath expand_dims extract eye fill_diagonal fix flip fliplr
    flipud fromregex genfromtxt get_include gradient hamming hanning histogram
    histogram2d histogram_bin_edges histogramdd hsplit i0 imag index_exp info insert
    interp intersect1d iscomplex iscomplexobj isin isneginf isposinf isreal isrealobj
    issubdtype iterable ix_ kaiser kron load loadtxt mask_indices median meshgrid mgrid
    mintypecode nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
    nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndenumerate
    ndindex ogrid packbits pad percentile piecewise place poly poly1d polyadd polyder
    polydiv polyfit polyint polymul polysub polyval put_along_axis quantile r_
    ravel_multi_index real real_if_close roots rot90 row_stack s_ save savetxt savez
    savez_compressed select setdiff1d setxor1d sinc sort_complex split take_along_axis
    tile tri tril tril_indices tril_indices_from trim_zeros triu triu_indices
    triu_indices_from typename union1d unique unpackbits unravel_index unwrap vander
    vectorize vsplit
    """.split()
)
# The same, for names NumPy 2 removed at the top level too (RESTORED has them).
LIB_RESTORED = ("asfarray", "asscalar", "in1d", "issubclass_", "msort", "trapz")


def lib_missing() -> dict:
    """``numpy.lib``'s names of LIB_ALIASES and LIB_RESTORED this NumPy lacks,
    each with the object NumPy 1.x had under it (install() puts back those)."""
    import numpy.lib

    found = {name: RESTORED[name][1] for name in LIB_RESTORED}
    found.update((name, getattr(np, name)) for name in LIB_ALIASES if hasattr(np, name))
    return {name: value for name, value in found.items() if name not in numpy.lib.__dict__}


def install(set_attribute) -> None:
    """Puts back what ``missing()`` and ``lib_missing()`` name, through
    ``set_attribute`` (_install._set, which uninstall() undoes)."""
    for name in missing():
        set_attribute(np.__dict__, name, RESTORED[name][1])
    for name, value in lib_missing().items():
        set_attribute(np.lib.__dict__, name, value)
