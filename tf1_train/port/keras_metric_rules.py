"""TF 1.x's name for the accuracy a Keras model logs: ``metrics=['accuracy']`` was
logged as ``'acc'`` (and ``'val_acc'``) by TF 1.x's tf.keras (Keras 2.2's rule);
Keras 3 logs it under the name given, ``'accuracy'``. So ``history.history['acc']``
raises KeyError and a callback's ``logs.get('acc')`` returns None: the TensorFlow
cookbook's Keras chapter collected a list of Nones for its accuracy plot.

Found: a string key ``'acc'`` or ``'val_acc'`` read by subscript or ``.get`` in a
file that compiles a model with ``metrics=[... 'accuracy' ...]``.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.rules import BREAKS, _rule

ROW = "TF 1.x's `'acc'` key for `metrics=['accuracy']`"
KEY = "keras-accuracy-key"
_rule(
    KEY,
    BREAKS,
    "'{new}' (or compile with metrics=['acc'] to keep the key): Keras 3 logs "
    "metrics=['accuracy'] as 'accuracy', where TF 1.x's tf.keras logged '{old}', so "
    "{construct} raises KeyError (a subscript) or gives None (.get)",
    "leaves it unchanged and reports nothing",
    ROW,
)
KEYS = {"acc": "accuracy", "val_acc": "val_accuracy"}


def _compiles_accuracy(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "compile":
            for k in node.keywords:
                if k.arg == "metrics" and isinstance(k.value, (ast.List, ast.Tuple)):
                    if any(isinstance(e, ast.Constant) and e.value == "accuracy"
                           for e in k.value.elts):  # fmt: skip
                        return True
    return False


def _key(node: ast.AST):
    """The constant key ``node`` reads (``x['acc']``, ``x.get('acc')``), or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "get" and node.args:
        first = node.args[0]
        return first.value if isinstance(first, ast.Constant) else None
    return None


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    if not _compiles_accuracy(tree):
        return
    for node in ast.walk(tree):
        old = _key(node)
        if isinstance(old, str) and old in KEYS:
            construct = ast.unparse(node)
            yield node, KEY, construct, {"old": old, "new": KEYS[old], "construct": construct}
