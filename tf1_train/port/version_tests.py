"""Tests of TensorFlow's version, evaluated as the program would evaluate them.

Code written across TensorFlow releases branches on the version string:
``use_tf12_api = LooseVersion(tf.VERSION) >= LooseVersion('0.12.0')`` and
``if use_tf12_api: tf.summary.FileWriter(...) else: tf.train.SummaryWriter(...)``
(openai's universe-starter-agent), ``if int(tf.__version__.split('.')[0]) < 1:``,
``if tf.__version__.startswith('2'): tf = tf.compat.v1``. The branch that does
not run on TensorFlow 2.21 holds TF 0.x names the scan would otherwise call
``breaks``. Under tf1_train's runner the program still reads 2.21's version,
so the test is evaluated with it here, with Python's own rules (a plain
string comparison stays a string comparison), and with TF 1.15's version to
say whether the branch that does not run is the one TF 1.x ran.

Only what can be evaluated without running the program is: literals, the
version attributes of a name bound to ``tensorflow`` or
``tensorflow.compat.v1``, module-level names assigned once from such a test,
``int``/``float``/``str``/``tuple``/``list``/``map``, string methods,
indexing, comparisons and ``and``/``or``/``not``, and the usual version
wrappers (``LooseVersion``, ``StrictVersion``, ``parse_version``,
``version.parse``, ``Version``). Anything else leaves the test unknown.
"""

from __future__ import annotations

import ast
import operator
from typing import Dict, Optional, Tuple

TF_VERSION = "2.21.0"  # what tf.VERSION / tf.__version__ read, under the runner too
TF1_VERSION = "1.15.5"
_VERSION_PATHS = (["VERSION"], ["__version__"], ["version", "VERSION"])
_WRAPPERS = ("LooseVersion", "StrictVersion", "parse_version", "Version")
_CASTS = {"int": int, "float": float, "str": str, "tuple": tuple, "list": list}
_METHODS = ("startswith", "endswith", "split", "strip", "lstrip", "rstrip", "replace", "lower")
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


class Unknown(Exception):
    """The expression reads something a static scan cannot know."""


class VersionTests:
    """The version tests of one file's tree."""

    def __init__(self, tree: ast.AST):
        self._tf = _tf_aliases(tree)
        self._names: Dict[str, Tuple[object, object]] = {}
        if not self._tf:
            return
        counts: Dict[str, int] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and counts.get(target.id) == 1:
                    try:
                        self._names[target.id] = self._pair(node.value)
                    except Unknown:
                        pass

    def outcome(self, test: ast.expr) -> Optional[Tuple[bool, bool]]:
        """(on TensorFlow 2.21, on TensorFlow 1.15) for an ``if`` test that
        reads TensorFlow's version, or None."""
        if not self._tf or not self._reads_version(test):
            return None
        try:
            new, old = self._pair(test)
        except Unknown:
            return None
        return bool(new), bool(old)

    def _reads_version(self, test: ast.expr) -> bool:
        return any(
            (isinstance(n, ast.Name) and n.id in self._names)
            or (isinstance(n, ast.Attribute) and _version_of(n, self._tf))
            for n in ast.walk(test)
        )

    def _pair(self, node: ast.expr) -> Tuple[object, object]:
        return self._eval(node, 0), self._eval(node, 1)

    def _eval(self, node: ast.expr, which: int) -> object:
        try:
            return _Evaluator(self._tf, self._names, which).eval(node)
        except (TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError) as e:
            raise Unknown(str(e)) from e


class _Evaluator:
    def __init__(self, tf: set, names: Dict[str, Tuple[object, object]], which: int):
        self._tf, self._names, self._which = tf, names, which

    def eval(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.eval(e) for e in node.elts)
        if isinstance(node, ast.Name) and node.id in self._names:
            return self._names[node.id][self._which]
        if isinstance(node, ast.Attribute) and _version_of(node, self._tf):
            return (TF_VERSION, TF1_VERSION)[self._which]
        if isinstance(node, ast.Subscript):
            return self.eval(node.value)[self._index(node.slice)]
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.BoolOp):
            values = [bool(self.eval(v)) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.eval(node.operand)
        raise Unknown(ast.dump(node))

    def _index(self, node: ast.expr) -> object:
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if p is None else self.eval(p) for p in parts))
        return self.eval(node)

    def _compare(self, node: ast.Compare) -> bool:
        left = self.eval(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            compare = _COMPARE.get(type(op))
            if compare is None:
                raise Unknown(type(op).__name__)
            right = self.eval(right_node)
            if not compare(left, right):
                return False
            left = right
        return True

    def _call(self, node: ast.Call) -> object:
        if node.keywords:
            raise Unknown("keywords")
        func, args = node.func, node.args
        if isinstance(func, ast.Attribute) and func.attr in _METHODS:
            value = self.eval(func.value)
            if isinstance(value, str):
                return getattr(value, func.attr)(*(self.eval(a) for a in args))
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "parse" and isinstance(func, ast.Attribute):
            owner = func.value.attr if isinstance(func.value, ast.Attribute) else func.value
            name = "Version" if getattr(owner, "id", owner) == "version" else name
        if name in _WRAPPERS and len(args) == 1:
            return _Version(self.eval(args[0]))
        if name == "map" and len(args) == 2 and getattr(args[0], "id", "") in _CASTS:
            return tuple(map(_CASTS[args[0].id], self.eval(args[1])))
        if name in _CASTS and len(args) == 1 and isinstance(func, ast.Name):
            return _CASTS[name](self.eval(args[0]))
        raise Unknown(ast.unparse(func))


class _Version:
    """A version wrapper compared by its numeric parts (``'1.0.0-rc1'`` is
    (1, 0, 0, 0)), with a plain string on the other side converted."""

    def __init__(self, text: object):
        if not isinstance(text, str):
            raise Unknown("version of a non-string")
        self.parts = tuple(_number(p) for p in text.replace("-", ".").split("."))

    def _other(self, other: object) -> tuple:
        return (other if isinstance(other, _Version) else _Version(other)).parts

    def __eq__(self, other):
        return self.parts == self._other(other)

    def __ne__(self, other):
        return self.parts != self._other(other)

    def __lt__(self, other):
        return self.parts < self._other(other)

    def __le__(self, other):
        return self.parts <= self._other(other)

    def __gt__(self, other):
        return self.parts > self._other(other)

    def __ge__(self, other):
        return self.parts >= self._other(other)

    __hash__ = None


def _number(part: str) -> int:
    digits = ""
    for c in part:
        if not c.isdigit():
            break
        digits += c
    return int(digits) if digits else 0


def _version_of(node: ast.Attribute, tf: set) -> bool:
    """Whether ``node`` is ``tf.VERSION``, ``tf.__version__`` or ``tf.version.VERSION``."""
    path = []
    while isinstance(node, ast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    return isinstance(node, ast.Name) and node.id in tf and path in _VERSION_PATHS


def _tf_aliases(tree: ast.AST) -> set:
    """The names bound to ``tensorflow`` or ``tensorflow.compat.v1``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "tensorflow" or a.name == "tensorflow.compat.v1" and a.asname:
                    names.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module == "tensorflow.compat":
            names.update(a.asname or a.name for a in node.names if a.name == "v1")
    return names
