"""``isinstance(x, tf.Variable)`` where ``tf`` is the v1 API: false for
every variable TensorFlow 2.21 makes.

On TF 1.15 ``tf.Variable`` was ``VariableV1``, the base class of its
reference and resource variables alike, and TF1 code tested for a variable
with it (NVIDIA's StyleGAN asserts it before every assignment). TensorFlow
2.21 keeps ``tf.compat.v1.Variable`` as ``VariableV1``, but its resource
variables (what ``get_variable``, ``tf.compat.v1.Variable`` and TF 2's
``tf.Variable`` make) no longer derive from it: the assertion fails, an
``if`` takes its other branch. With ``import tensorflow as tf`` (TF 2's API)
``tf.Variable`` is TF 2's base class and the test holds. Found: an
``isinstance`` or ``issubclass`` whose classes include the v1 API's
``Variable``. tests/test_compat_variable_class.py runs the cases.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.rules import CHANGES, _rule

ROW = "`isinstance(x, tf.Variable)` with the v1 API"
KEY = "isinstance-v1-variable"
_rule(
    KEY,
    CHANGES,
    "isinstance(x, tf.compat.v2.Variable) (every variable's base class, on TF 1.15 too): "
    "TensorFlow 2.21's resource variables are no tf.compat.v1.Variable, so this is false for "
    "every variable the program makes; unmodified: tf1_train.compat.install() makes them "
    "instances again",
    "leaves it unchanged and reports nothing",
    ROW,
)
CHECKS = ("isinstance", "issubclass")
V1_VARIABLE = "tensorflow.compat.v1.Variable"  # also as tf.compat.v1.compat.v1.Variable


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each ``isinstance(x, C)`` / ``issubclass(k, C)`` with the v1 API's
    ``Variable`` as ``C`` or in its tuple."""
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in CHECKS
            and len(node.args) == 2
        ):
            continue
        classes = node.args[1]
        classes = classes.elts if isinstance(classes, ast.Tuple) else [classes]
        if any((resolve(c) or "").endswith(V1_VARIABLE[len("tensorflow") :]) for c in classes):
            yield node, KEY, ast.unparse(node), {}
