"""NumPy 1.x's array of sequences of unequal lengths, after install().

Until NumPy 1.24, ``np.array([[1, 2], [3]])`` made a one-dimensional object
array of the two lists (NumPy 1.20 to 1.23 warned); since then it raises
``ValueError: setting an array element with a sequence. The requested array
has an inhomogeneous shape ...`` unless ``dtype=object`` is given, and
TensorFlow 2.21 runs with NumPy 2. TF1-era programs made such arrays on
purpose and by accident, and stopped there where they had run for years:
openai's universe-starter-agent at its first update (``np.asarray(rewards +
[value])``, its value a one-element array), the TensorFlow cookbook's
``np.nan_to_num`` of a tuple of rows and ``np.random.choice`` of sentences,
sketch-rnn's stroke lists.

install() makes ``np.array``, ``np.asarray``, ``np.nan_to_num`` and
``np.random.choice``, called from the program's own code (not from an
installed package or Python's library, which may rely on the error), retry
such a call with ``dtype=object``: NumPy's own way to the array NumPy 1.x
made, so the object array, and for ``nan_to_num`` and ``choice`` what they
returned for it, are NumPy 1.18's (the random draws included). Given a
numeric dtype, NumPy 1.x took a one-element array among the elements as its
number (``np.asarray([1.5, np.array([2.25])], np.float32)``); the retry does
so too, and so does TensorFlow's conversion of a value fed to a session (the
starter agent feeds its object arrays of returns). What NumPy 1.x refused
with a dtype (sequences of unequal lengths above one element) still raises.
The first such array prints one ``note:`` line naming the call and its line,
the first such feed one more.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from typing import Callable, Optional

import numpy as np

from tf1_train.compat._v1_imports import _PACKAGES

NOTE = (
    "note: {where}: {call} of sequences of unequal lengths made as NumPy 1.x made it (an object "
    "array; for a numeric dtype, each one-element array taken as its number), where NumPy 1.24 "
    "and later raise ValueError; later such arrays are not noted"
)
FED_NOTE = (
    "note: a fed value holding one-element arrays: each taken as its number, as NumPy 1.x did "
    "(NumPy 2 raises ValueError)"
)
_RAGGED = "setting an array element with a sequence"  # NumPy 2's message, "inhomogeneous" or not
_LIBRARIES = (
    sysconfig.get_paths()["stdlib"],
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # tf1_train itself
)
_noted: list = []


def install(set_attribute) -> None:
    set_attribute(np, "array", _retried(np.array, "np.array", _with_object_dtype))
    set_attribute(np, "asarray", _retried(np.asarray, "np.asarray", _with_object_dtype))
    set_attribute(np, "nan_to_num", _retried(np.nan_to_num, "np.nan_to_num", _of_objects))
    choice = _retried(np.random.choice, "np.random.choice", _of_objects)
    set_attribute(np.random, "choice", choice)
    from tensorflow.python.util import numpy_compat

    set_attribute(numpy_compat, "np_asarray", _fed(numpy_compat.np_asarray))


def _with_object_dtype(original: Callable, args: tuple, kwargs: dict) -> Optional[Callable]:
    """``np.array(x)`` / ``np.asarray(x)`` again with ``dtype=object``; with
    a dtype given, again with each one-element array in ``x`` as its number
    (NumPy 1.x's ``np.asarray([1.5, np.array([2.25])], np.float32)``), or None."""
    if not args:
        return None
    dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
    if dtype is not None:
        numbers = one_element_arrays_as_numbers(args[0])
        return None if numbers is args[0] else lambda: original(numbers, *args[1:], **kwargs)
    rest = {k: v for k, v in kwargs.items() if k != "dtype"}
    return lambda: original(args[0], object, *args[2:], **rest)


def one_element_arrays_as_numbers(values):
    """``values`` (a list, tuple or object array) with each one-element array
    in it replaced by its number, as NumPy 1.x read it for a numeric dtype;
    ``values`` itself if it holds none."""
    if isinstance(values, np.ndarray) and values.size == 1 and values.dtype != object:
        return values.item()
    if isinstance(values, np.ndarray) and values.dtype == object:
        out = np.empty(values.shape, dtype=object)
        for index, value in np.ndenumerate(values):
            out[index] = one_element_arrays_as_numbers(value)
        changed = any(a is not b for a, b in zip(out.flat, values.flat))
        return out if changed else values
    if isinstance(values, (list, tuple)):
        out = [one_element_arrays_as_numbers(v) for v in values]
        return out if any(a is not b for a, b in zip(out, values)) else values
    return values


def _fed(original: Callable) -> Callable:
    """TensorFlow's conversion of a fed value (``session.run``'s feed_dict):
    a one-element array in a list or object array fed to a numeric
    placeholder is its number again, as TF 1.x's NumPy made it."""
    if getattr(original, "_tf1_train_original", None) is not None:
        return original

    @functools.wraps(original)
    def np_asarray(values, dtype=None, *args, **kwargs):
        try:
            return original(values, dtype, *args, **kwargs)
        except (ValueError, TypeError):
            numbers = one_element_arrays_as_numbers(values)
            if dtype is None or numbers is values or not np.issubdtype(dtype, np.number):
                raise
        result = original(numbers, dtype, *args, **kwargs)
        _note("a fed value", None)
        return result

    np_asarray._tf1_train_original = original
    return np_asarray


def _of_objects(original: Callable, args: tuple, kwargs: dict) -> Optional[Callable]:
    """``nan_to_num`` / ``choice`` of the object array NumPy 1.x made of their input."""
    if not args:
        return None
    return lambda: original(np.array(args[0], dtype=object), *args[1:], **kwargs)


def _retried(original: Callable, call: str, retry: Callable) -> Callable:
    if getattr(original, "_tf1_train_original", None) is not None:
        return original

    @functools.wraps(original)
    def ragged_as_objects(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except ValueError as e:
            caller = sys._getframe(1)
            again = retry(original, args, kwargs) if _RAGGED in str(e) else None
            if again is None or not _programs(caller.f_code.co_filename):
                raise
        result = again()  # outside the handler: an error of its own is NumPy 1.x's, alone
        _note(call, caller)
        return result

    ragged_as_objects._tf1_train_original = original
    return ragged_as_objects


def _programs(filename: str) -> bool:
    """Whether the code in ``filename`` is the program's, not a library's."""
    path = os.path.abspath(filename) if not filename.startswith("<") else filename
    if any(p in path for p in _PACKAGES):
        return False
    return not any(path.startswith(os.path.join(lib, "")) for lib in _LIBRARIES)


def _note(call: str, frame) -> None:
    """One line for the first array made so, one for the first feed."""
    kind = "feed" if frame is None else "array"
    if kind not in _noted:
        _noted.append(kind)
        if frame is None:
            print(FED_NOTE, file=sys.stderr)
            return
        where = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
        print(NOTE.format(where=where, call=call), file=sys.stderr)
