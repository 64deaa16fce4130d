"""A fused batch norm's epsilon below 1.001e-5, which TF 1.x raised to 1.001e-5.

TF 1.x's ``fused_batch_norm`` (and every batch norm layer on its fused path:
``tf.layers``, tf-slim, Keras) used ``max(epsilon, 1.001e-5)``, cuDNN's floor,
on every device; TensorFlow 2 uses the epsilon given. ResNets set 1e-5
(tf-slim's ``resnet_arg_scope`` default, the official models'
``_BATCH_NORM_EPSILON``), so their numbers move where a channel's variance
is near epsilon (compat/_fused_epsilon.py has the figures).

Found per file, flow-insensitively: an ``epsilon=`` (``batch_norm_epsilon=``
for the arg scopes) below the floor given to a batch norm call, a literal or
a module-level name bound to one, unless the call says ``fused=False`` (the
plain ops took epsilon as given on TF 1.x too); a ``resnet_arg_scope()`` call left at its
1e-5 default; an ``'epsilon'`` entry below the floor in a dict literal (slim's
``batch_norm_params``). tests/port_scan_cases_runtime.py has the cases.
"""

import ast
import numbers
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.port.rules import CHANGES, _rule

FLOOR = 1.001e-5
ROW = "a batch norm epsilon below 1.001e-5 (`epsilon=1e-5`, `resnet_arg_scope()`)"
KEY = "batch-norm-epsilon-floor"
_rule(
    KEY,
    CHANGES,
    "TF 1.x's fused batch norm raised epsilon to 1.001e-5 (cuDNN's floor) and TF 2 uses the "
    "value given: pass epsilon=1.001e-5 to keep TF 1.x's numbers (Keras' own ResNets do); "
    "they move where a channel's variance is near epsilon (a slim ResNet-50 with small "
    "weights: gradients 2.5-5% apart); unmodified: tf1_train.compat.install() applies the floor",
    "leaves it unchanged and reports nothing",
    ROW,
)
BATCH_NORMS = ("batch_norm", "batch_normalization", "BatchNormalization", "fused_batch_norm")
ARG_SCOPES = "_arg_scope"  # resnet_arg_scope, inception_arg_scope, ...: batch_norm_epsilon=


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    constants = _module_constants(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "epsilon":
                    if _below(value, constants):
                        yield node, KEY, ast.unparse(value), {}
        if not isinstance(node, ast.Call):
            continue
        last = (resolve(node.func) or _name(node.func)).rsplit(".", 1)[-1]
        keyword = "epsilon" if last in BATCH_NORMS else None
        if last.endswith(ARG_SCOPES):
            keyword = "batch_norm_epsilon"
        if keyword is None or _unfused(node):
            continue
        given = [k.value for k in node.keywords if k.arg == keyword]
        if any(_below(v, constants) for v in given):
            yield node, KEY, ast.unparse(node.func), {}
        elif not given and last == "resnet_arg_scope":  # its default is 1e-5
            yield node, KEY, ast.unparse(node), {}


def _unfused(call: ast.Call) -> bool:
    """``fused=False``: the plain ops, which took epsilon as given on TF 1.x too (SimCLR)."""
    return any(
        k.arg == "fused" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )


def _name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _module_constants(tree: ast.AST) -> Dict[str, float]:
    """Module-level ``NAME = <number>`` bindings."""
    found = {}
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            value = _number(node.value, {})
            if isinstance(node.targets[0], ast.Name) and value is not None:
                found[node.targets[0].id] = value
    return found


def _number(node: ast.AST, constants: Dict[str, float]) -> Optional[float]:
    if isinstance(node, ast.Constant) and isinstance(node.value, numbers.Real):
        return None if isinstance(node.value, bool) else float(node.value)
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _below(node: ast.AST, constants: Dict[str, float]) -> bool:
    value = _number(node, constants)
    return value is not None and value < FLOOR
