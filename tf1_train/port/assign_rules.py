"""An assign that changes a variable's shape: ``tf.assign(v, tf.concat([v,
x], 0), validate_shape=False)``, the way TF 1.x programs grew a buffer of
scores or detections batch by batch (SSD-Tensorflow's streaming mAP in
``tf_extended/metrics.py``).

A TF 1.x reference variable took the new shape. A TF 2 resource variable
keeps the shape it was made with, and ``tf.compat.v1.assign`` drops
``validate_shape``: the run raises "Trying to assign to variable with tensor
with wrong shape" (or the graph "Shape mismatch" when the new shape is
known). Made with ``tf.Variable(..., validate_shape=False)`` the variable has
no fixed shape, and the assign works on TF 1.x and TF 2 alike (measured on
TensorFlow 1.15.5 and 2.21).

Found: ``assign(..., validate_shape=False)`` (``tf.assign``,
``state_ops.assign``, a variable's ``.assign``) whose variable the file does
not bind to a call given ``validate_shape=False``.
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.names import last_name
from tf1_train.port.rules import BREAKS, _rule
from tf1_train.port.variable_rules import _false

ROW = "an assign that changes a variable's shape"
KEY = "assign-validate-shape"
_rule(
    KEY,
    BREAKS,
    "make {variable} with tf.Variable(..., validate_shape=False) (no fixed shape: the assign "
    "then works on TF 1.x and TF 2 alike); a resource variable keeps the shape it was made "
    "with and tf.compat.v1.assign drops validate_shape, so the run raises 'Trying to assign to "
    "variable with tensor with wrong shape'; unedited: python -m tf1_train.compat "
    "--v1_variables (TF 1.x's reference variables took the new shape)",
    "leaves it unchanged and reports nothing",
    ROW,
)


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    shapeless = _made_without_a_shape(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "assign" or not _false_keyword(node, "validate_shape"):
            continue
        # tf.assign(v, x, ...) takes the variable first; v.assign(x, ...) is its method
        target = node.args[0] if len(node.args) >= 2 else node.func.value
        if last_name(target) not in shapeless:
            variable = ast.unparse(target)
            yield node, KEY, ast.unparse(node.func), {"variable": variable}


def _made_without_a_shape(tree: ast.AST) -> Set[str]:
    """Names the file binds to a call given validate_shape=False (a variable made so)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = node.value
            if _false_keyword(call, "validate_shape"):
                names.update(filter(None, (last_name(t) for t in node.targets)))
    return names


def _false_keyword(call: ast.Call, name: str) -> bool:
    return any(k.arg == name and _false(k.value) for k in call.keywords)
