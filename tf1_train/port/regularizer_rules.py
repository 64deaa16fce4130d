"""A variable's regularizer that does more than return its loss.

TF 1.x called ``get_variable``'s regularizer once, under
``<variable>/Regularizer/``. TensorFlow 2.21 calls it once in the caller's
scope to test its result for None, and again at each use of the lazy item it
puts in REGULARIZATION_LOSSES. The loss is the same; what the function does
besides is repeated: a regularizer that also adds its loss to a collection
(``tf.add_to_collection('losses', ...)``, ``tf.losses.add_loss``) puts its
term there twice (a total of that collection and REGULARIZATION_LOSSES: 0.09
where TensorFlow 1.15.5 gives 0.06, tests/test_compat_regularization_losses.py),
and one that writes a summary gives TensorBoard two or three tags for one.

Found: a ``regularizer=`` (``weights_regularizer=``, ``biases_regularizer=``:
tf-slim's layers and ``arg_scope``, which reach ``get_variable``) given to a
TensorFlow or tf-slim call, whose value is a lambda, a function defined in
the file, or a call of one (a factory, as polyaxon's ``built_regularizer``),
whose body adds to a collection or writes a summary.
tests/port_scan_cases_runtime.py has the cases.
"""

import ast
from typing import Dict, Iterator, List, Tuple

from tf1_train.port.rules import CHANGES, LEAVES, _rule

ROW = "`get_variable(..., regularizer=f)` where `f` also adds to a collection"
KEY = "regularizer-side-effects"
_rule(
    KEY,
    CHANGES,
    "TensorFlow 2 calls a get_variable regularizer once to test it for None and again at "
    "each use of REGULARIZATION_LOSSES, so what it does besides returning the loss happens "
    "two or more times (a sum of 'losses' counts the decay again; summaries get _1 tags): "
    "return the loss only, and add it to your collection once, after get_variable, from "
    "tf.compat.v1.losses.get_regularization_losses(); unmodified: "
    "tf1_train.compat.install() calls it once, where TF 1.x did",
    LEAVES,
    ROW,
)
KEYWORDS = ("regularizer", "weights_regularizer", "biases_regularizer")
_COLLECTING = ("add_to_collection", "add_to_collections")


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        path = resolve(node.func) or ""
        if not path.startswith(("tensorflow", "tf_slim")):
            continue
        for keyword in node.keywords:
            if keyword.arg not in KEYWORDS:
                continue
            if any(_has_side_effect(b, resolve) for b in _bodies(keyword.value, defs)):
                shown = f"{ast.unparse(node.func)}({keyword.arg}={ast.unparse(keyword.value)})"
                yield keyword.value, KEY, shown, {}


def _bodies(value: ast.AST, defs) -> List[ast.AST]:
    """The code the regularizer runs: a lambda, a function of the file, or
    the functions a function of the file makes it from (a factory: what the
    factory itself does runs once)."""
    if isinstance(value, ast.Lambda):
        return [value]
    if isinstance(value, ast.Name) and value.id in defs:
        return [defs[value.id]]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in defs:
        factory = defs[value.func.id]
        inner = (ast.FunctionDef, ast.Lambda)
        return [n for n in ast.walk(factory) if isinstance(n, inner) and n is not factory]
    return []


def _has_side_effect(body: ast.AST, resolve) -> bool:
    for node in ast.walk(body):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr in _COLLECTING:
            return True  # tf.add_to_collection, graph.add_to_collection
        path = resolve(node.func) or ""
        if (
            path.endswith(_COLLECTING)
            or path.startswith("tensorflow")
            and (".summary." in path or path.endswith("losses.add_loss"))
        ):
            return True
    return False
