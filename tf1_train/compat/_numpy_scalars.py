"""The note on NumPy 2's refusal of a one-element array where a number goes.

NumPy 1.x took an array of one element, whatever its shape, as that element:
stored into an element of another array (``buf[i] = val``), or given to
``float()``, ``int()`` or ``math.exp``. NumPy 1.25 deprecated both and NumPy 2
refuses them (``ValueError: setting an array element with a sequence.``,
``TypeError: only 0-dimensional arrays can be converted to Python scalars``).
TF1 programs hit it with what ``sess.run`` returns for a batch of one:
spinningup's vpg, ppo and trpo store the value estimate and log-probability
of their one observation, shape (1,), in their buffers at the first step.

Neither can be put back: both are ndarray's own C slots, which Python code
cannot replace. The runner ends such a stop with one note naming the fix,
and only where it is this case: a ValueError when the failing line stores a
name (``buf[t] = v``) whose value is a one-element array of one or more
dimensions (a longer array NumPy 1.x refused too), a TypeError by NumPy 2's
message (NumPy 1.x gave another for arrays of several elements).
"""

import ast
import linecache
from types import TracebackType
from typing import Optional

import numpy as np

NOTE = (
    "NumPy 1.x took a one-element array (shape (1,) or (1, 1): what sess.run returns for a "
    "batch of one) as its number where a number goes, stored into an array's element or given "
    "to float()/int(); NumPy 2 takes only 0-dimensional arrays there: take the number with "
    "value.item() (or np.ravel(value)[0], which TF 1.x's NumPy gives too) where the program "
    "stores or converts it; tf1_train cannot put NumPy 1.x's conversion back"
)
_SEQUENCE = "setting an array element with a sequence."
_SCALAR = "only 0-dimensional arrays can be converted to Python scalars"


def note(error: BaseException) -> str:
    """NOTE when ``error`` is NumPy 2 refusing a one-element array, else ''."""
    if isinstance(error, TypeError) and str(error) == _SCALAR:
        return NOTE
    if isinstance(error, ValueError) and str(error) == _SEQUENCE:
        tb = _innermost(error.__traceback__)
        stored = _stored_name(tb) if tb else None
        if stored and _one_element(tb.tb_frame.f_locals.get(stored)):
            return NOTE
    return ""


def _stored_name(tb: TracebackType) -> Optional[str]:
    """``v`` when the failing line is ``x[...] = v``."""
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
    try:
        (statement,) = ast.parse(line).body
    except (SyntaxError, ValueError):
        return None
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name):
        if all(isinstance(t, ast.Subscript) for t in statement.targets):
            return statement.value.id
    return None


def _innermost(tb: Optional[TracebackType]) -> Optional[TracebackType]:
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _one_element(value: object) -> bool:
    return isinstance(value, np.ndarray) and value.ndim > 0 and value.size == 1
