"""``ExponentialMovingAverage.apply`` over the regularization losses.

TF 2's ``get_variable(regularizer=...)`` puts a ``_LazyEvalTensor`` in
REGULARIZATION_LOSSES, not a tensor: it has no ``ref()``, which
``ExponentialMovingAverage.apply`` calls on each item, so the line raises
AttributeError (TensorFlow's distributed Inception trainer averaged every
loss for TensorBoard, the regularization terms included). A sum of the terms
(``tf.add_n``) is a tensor and averages as before.

Found per scope (the module, each function), flow-insensitively: an
``.apply(...)`` of ``ExponentialMovingAverage(...)`` or of a name bound to
one, whose list holds the collection's items: the collection itself
(``get_collection(...REGULARIZATION_LOSSES)``, ``get_regularization_losses()``),
a list added to it, or a name of that scope bound or extended (``+=``,
``.extend``) with such a list. tests/port_scan_cases_runtime.py has the cases.
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.rules import BREAKS, _rule
from tf1_train.port.variable_rules import _FUNCTIONS, _own

ROW = (
    "`tf.train.ExponentialMovingAverage(...).apply(losses + "
    "tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))`"
)
KEY = "ema-regularization-losses"
_rule(
    KEY,
    BREAKS,
    "average tf.add_n(tf.compat.v1.losses.get_regularization_losses()) (one tensor), or "
    "[tf.convert_to_tensor(t) for t in terms]: the terms get_variable(regularizer=...) made "
    "(tf-slim's, a variable_scope's regularizer) are lazy tensors without ref() on TF 2, and "
    "ExponentialMovingAverage.apply raises AttributeError on them; unmodified: "
    "tf1_train.compat.install() puts tensors there again, as TF 1.x did",
    "leaves it unchanged and reports nothing",
    ROW,
)


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]
    for scope in scopes:
        nodes = _own(scope)
        terms = _names_holding_terms(nodes, resolve)
        averagers = {
            ast.unparse(n.targets[0])
            for n in nodes
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and _averager(n.value, resolve)
        }
        for node in nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            if node.func.attr != "apply" or not (
                _averager(owner, resolve) or ast.unparse(owner) in averagers
            ):
                continue
            given = node.args[:1] + [k.value for k in node.keywords if k.arg == "var_list"]
            if any(_holds_terms(arg, terms, resolve) for arg in given):
                yield node, KEY, ast.unparse(node), {}


def _averager(node: ast.AST, resolve) -> bool:
    path = (resolve(node.func) or "") if isinstance(node, ast.Call) else ""
    return path.startswith("tensorflow") and path.endswith(".train.ExponentialMovingAverage")


def _collection(node: ast.AST, resolve) -> bool:
    """The collection's items themselves: a list of lazy tensors on TF 2."""
    if not isinstance(node, ast.Call):
        return False
    path = resolve(node.func) or ""
    if path.endswith("get_regularization_losses"):
        return True
    key = node.args[:1] or [k.value for k in node.keywords if k.arg == "key"]
    return path.endswith("get_collection") and any(
        (isinstance(k, ast.Attribute) and k.attr == "REGULARIZATION_LOSSES")
        or (isinstance(k, ast.Constant) and k.value == "regularization_losses")
        for k in key
    )


def _holds_terms(node: ast.AST, names: Set[str], resolve) -> bool:
    """Whether the list ``node`` builds holds the collection's items."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _holds_terms(node.left, names, resolve) or _holds_terms(node.right, names, resolve)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(
            isinstance(e, ast.Starred) and _holds_terms(e.value, names, resolve) for e in node.elts
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list":
        return any(_holds_terms(a, names, resolve) for a in node.args)
    return _collection(node, resolve)


def _names_holding_terms(nodes, resolve) -> Set[str]:
    """Names the scope binds or extends with the collection's items (to a
    fixed point: ``a = terms; b = a + [x]``)."""
    names: Set[str] = set()
    while True:
        found = set(names)
        for node in nodes:
            if isinstance(node, ast.Assign) and _holds_terms(node.value, names, resolve):
                found.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                if _holds_terms(node.value, names, resolve):
                    found.add(node.target.id)
            elif _extends(node) and _holds_terms(node.args[0], names, resolve):
                found.add(node.func.value.id)
        if found == names:
            return names
        names = found


def _extends(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "extend"
        and isinstance(node.func.value, ast.Name)
        and len(node.args) == 1
    )
