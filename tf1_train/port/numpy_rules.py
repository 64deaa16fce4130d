"""What NumPy removed that TF1-era programs use (TensorFlow 2.21 comes with
NumPy 2): its aliases of the builtins (``np.int``, gone since 1.24), names
(``np.float_``, ``np.NaN``, ``np.asscalar``, ``np.product``, ... which
tf1_train.compat.install() puts back: _numpy_removed.py; others it does
not), ``ndarray.tostring()`` (the TFRecord writers' ``img.tostring()``),
``itemset``, the binary mode of ``np.fromstring`` (their readers'),
``np.reshape(..., newshape=)`` and ``np.array(x, copy=False)`` (baselines'
replay buffer), which NumPy 2 turned from "copy if needed" into "never
copy"; and ``np.load`` of a pickled dict without ``allow_pickle`` (NumPy
1.16.3's default: facenet's MTCNN weights), and a generator given to
``np.stack`` and its kin or to ``np.sum`` (FixMatch's augmentation pool:
``np.stack(x['image'] for x in samples)``), and names inside NumPy's
submodules that NumPy 2 removed or made private (``np.lib.pad``: Kyubyong's
transformer's data_load.py; ``from numpy.lib.arraypad import ...``). Found
running TensorFlow-Examples' DCGAN on NumPy 2.4. Names are checked against
the installed NumPy, as api_names.py checks TensorFlow's, so the scan says
what this NumPy lacks.
"""

import ast
import importlib.util
import warnings
from typing import Dict, Iterator, Optional, Tuple

import numpy as np

from tf1_train.compat import _numpy_removed
from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, _rule

ROW_NUMPY_ALIASES = "`np.int`, `np.float`"
ROW_NUMPY_2 = "NumPy 2's removals"
UPGRADE = "leaves it unchanged and reports nothing (it does not read NumPy names)"
# NumPy's aliases of builtins, removed in 1.24 (np.bool and np.long came back as NumPy types).
NUMPY_ALIASES = ("int", "float", "complex", "str", "object")

_rule(
    "numpy-builtin-alias",
    BREAKS,
    "{name} (the builtin it was): NumPy 1.24 removed np.{name}, and TensorFlow 2.21 needs "
    "a newer NumPy, so it raises AttributeError; tf1_train.compat.install() puts these "
    "aliases back",
    UPGRADE,
    ROW_NUMPY_ALIASES,
)

_rule(
    "numpy-removed-alias",
    BREAKS,
    "{new}: NumPy 2 removed np.{name}, so it raises AttributeError with TensorFlow 2.21's "
    "NumPy; tf1_train.compat.install() puts it back as what NumPy 1.x had",
    UPGRADE,
    ROW_NUMPY_2,
)
_rule("numpy-removed", BREAKS, "{fix}", UPGRADE, ROW_NUMPY_2)
ROW_NUMPY_PICKLE = "`np.load(path, encoding='latin1').item()`"
_rule(
    "numpy-load-pickle",
    BREAKS,
    "np.load(..., allow_pickle=True) for a file you trust: NumPy 1.16.3 made allow_pickle=False "
    "the default, and a dict saved with np.save (caffe-tensorflow's weights, MTCNN's det1.npy: "
    "what .item() reads back) is a pickled object array, so the load raises ValueError "
    "'Object arrays cannot be loaded when allow_pickle=False'",
    UPGRADE,
    ROW_NUMPY_PICKLE,
)

METHODS = {
    "tostring": "x.tobytes() (the same bytes): NumPy 2 removed ndarray.tostring",
    "itemset": "a[index] = value: NumPy 2 removed ndarray.itemset",
    "ptp": "np.ptp(x, axis) (the same numbers): NumPy 2 removed ndarray.ptp",
}
FROMSTRING = (
    "np.frombuffer(data, dtype) (a read-only view: add .copy() to write to it): NumPy 2 "
    "removed np.fromstring's binary mode (no sep=), which raises ValueError"
)
NEWSHAPE = "np.reshape(a, shape) (positional, or shape=): NumPy 2.4 removed newshape="
COPY_FALSE = (
    "np.asarray(x) (a copy only where one is needed, what copy=False meant in NumPy 1): "
    "NumPy 2's np.array(x, copy=False) forbids any copy and raises ValueError where one is "
    "needed (a list, a scalar, another dtype)"
)

STACKS = ("stack", "vstack", "hstack", "dstack", "column_stack", "row_stack")
GENERATOR = {  # what refuses a generator as its first argument now
    **dict.fromkeys(
        ("numpy." + name for name in STACKS),
        "np.{name}([...]) (a list): NumPy 1.16 deprecated a generator there, and TensorFlow "
        "2.21's NumPy raises TypeError 'arrays to stack must be passed as a \"sequence\" type'",
    ),
    "numpy.sum": "sum(...) (Python's, what np.sum of a generator returned) or np.sum([...]): "
    "NumPy 1.15 deprecated it, and TensorFlow 2.21's NumPy raises TypeError",
}


def _expired(name: str) -> str:
    """NumPy's own word on a name it removed, or a plain one."""
    try:
        from numpy._expired_attrs_2_0 import __expired_attributes__ as expired
    except ImportError:
        expired = {}
    if name in expired:
        return f"NumPy 2 removed np.{name}: {expired[name]}"
    return f"NumPy {np.__version__} has no np.{name} (removed: see NumPy's release notes)"


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each use of what NumPy removed; one
    walk decides every NumPy read."""
    numpy, loads = Aliases(tree, roots=("numpy",)), set()
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and numpy.resolve(node) == "numpy." + node.attr:
            name = node.attr
            if name in NUMPY_ALIASES:
                yield node, "numpy-builtin-alias", ast.unparse(node), {"name": name}
            elif name in _numpy_removed.RESTORED:
                new = _numpy_removed.RESTORED[name][0]
                yield node, "numpy-removed-alias", ast.unparse(node), {"name": name, "new": new}
            elif not name.startswith("_") and not hasattr(np, name):
                yield node, "numpy-removed", ast.unparse(node), {"fix": _expired(name)}
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            path = numpy.resolve(node) or ""
            fix = _submodule_fix(path)
            if fix:
                yield node, "numpy-removed", ast.unparse(node), _lib_fills(path, fix)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for path, construct in _imported(node):
                fix = _submodule_fix(path)
                if fix:
                    yield node, "numpy-removed", construct, _lib_fills(path, fix)
        if isinstance(node, ast.Call):
            fix = _call_fix(node, numpy.resolve(node.func)) or _scalar_of_one(node, numpy)
            if fix:
                yield node, "numpy-removed", ast.unparse(node), {"fix": fix}
        load = _pickled_load(node, numpy)
        if load and id(load) not in loads:  # np.load(p, encoding=e).item(): once
            loads.add(id(load))
            yield load, "numpy-load-pickle", ast.unparse(load), {}


LIB_SERVED = (
    "works after tf1_train.compat.install(), which puts numpy.lib's NumPy 1.x aliases back "
    "(the same functions)"
)


def _lib_fills(path: str, fix: str) -> Dict[str, str]:
    """``np.lib.pad`` works under the runner (_numpy_removed.lib_missing puts it back)."""
    parts = path.split(".")
    served = _numpy_removed.LIB_ALIASES + _numpy_removed.LIB_RESTORED
    if len(parts) == 3 and parts[1] == "lib" and parts[2] in served:
        return {"fix": fix, "installed_works": LIB_SERVED}
    return {"fix": fix}


def _imported(node: ast.AST) -> Iterator[Tuple[str, str]]:
    """(path, construct) for the NumPy submodule paths an import names
    (``import numpy.lib.arraypad``, ``from numpy.lib import pad``)."""
    if isinstance(node, ast.Import):
        yield from ((a.name, f"import {a.name}") for a in node.names if a.name.startswith("numpy."))
    elif node.module and node.module.startswith("numpy") and not node.level:
        for a in node.names:
            yield f"{node.module}.{a.name}", f"from {node.module} import {a.name}"


def _submodule_fix(path: str) -> Optional[str]:
    """What to write for ``numpy.<module>.<name>...`` when the installed NumPy
    lacks it below a module it has (top-level names are findings' own)."""
    parts = path.split(".")
    if len(parts) < 3 or parts[0] != "numpy":
        return None
    owner = np
    for depth, part in enumerate(parts[1:], 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # np.lib.math and kin: deprecated, there
            found = getattr(owner, part, None) or _submodule(".".join(parts[: depth + 1]))
        if found is None:
            return None if depth == 1 else _moved(".".join(parts[1 : depth + 1]), part)
        owner = found
    return None


def _submodule(name: str):
    try:
        return importlib.import_module(name) if importlib.util.find_spec(name) else None
    except ImportError:
        return None


def _moved(gone: str, name: str) -> str:
    if hasattr(np, name) and not name.startswith("_"):
        return f"np.{name} (the same function): NumPy 2 removed np.{gone}"
    return (
        f"NumPy {np.__version__} has no np.{gone} (NumPy 2 removed it or made its module "
        "private): import what it held from numpy itself"
    )


def _pickled_load(node: ast.AST, numpy: Aliases):
    """The ``np.load(...)`` call of ``np.load(p).item()``, ``np.load(p)[()]``
    or ``np.load(p, encoding=...)`` (an encoding is for pickles only) without
    allow_pickle, else None."""
    load = None
    if isinstance(node, ast.Subscript) and ast.unparse(node.slice) == "()":
        load = node.value
    elif isinstance(node, ast.Call) and any(k.arg == "encoding" for k in node.keywords):
        load = node
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        load = node.func.value if node.func.attr in ("item", "tolist") else None
    if not (isinstance(load, ast.Call) and numpy.resolve(load.func) == "numpy.load"):
        return None
    return None if any(k.arg == "allow_pickle" for k in load.keywords) else load


ONE_ELEMENT = (
    "{builtin}(x[0]) of the one-element array, or the draw without size= (a scalar): NumPy "
    "1.25 deprecated {builtin}() of an array of one element and NumPy 2 refuses it (TypeError: "
    "only 0-dimensional arrays can be converted to Python scalars)"
)
SIZE_POSITION = {"numpy.random.choice": 1, "numpy.random.randint": 2}  # size= by position


def _scalar_of_one(call: ast.Call, numpy: Aliases) -> str:
    """``int(np.random.choice(n, size=1))``: the TensorFlow cookbook's word2vec helpers."""
    builtin = call.func.id if isinstance(call.func, ast.Name) else ""
    if builtin not in ("int", "float") or len(call.args) != 1:
        return ""
    inner = call.args[0]
    path = numpy.resolve(inner.func) if isinstance(inner, ast.Call) else None
    if not (path or "").startswith("numpy.random."):
        return ""
    size = [k.value for k in inner.keywords if k.arg == "size"]
    at = SIZE_POSITION.get(path)
    size += inner.args[at : at + 1] if at is not None else []
    one = size and ast.unparse(size[0]).replace(" ", "") in ("1", "(1,)", "[1]")
    return ONE_ELEMENT.format(builtin=builtin) if one else ""


def _call_fix(call: ast.Call, path) -> str:
    keywords = {k.arg for k in call.keywords}
    if path == "numpy.fromstring" and "sep" not in keywords and len(call.args) < 4:
        return FROMSTRING
    if path == "numpy.reshape" and "newshape" in keywords:
        return NEWSHAPE
    copy = [k.value for k in call.keywords if k.arg == "copy"]
    if path == "numpy.array" and copy and isinstance(copy[0], ast.Constant):
        return COPY_FALSE if copy[0].value is False else ""
    if path in GENERATOR and call.args and isinstance(call.args[0], ast.GeneratorExp):
        return GENERATOR[path].format(name=path.rsplit(".", 1)[-1])
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in METHODS and path is None:
        if func.attr != "tostring" or not (call.args or call.keywords):  # ET.tostring(e)
            return METHODS[func.attr]
    return ""
