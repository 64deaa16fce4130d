"""A program that builds TF 2's ``tf.summary.scalar``/``histogram`` in a v1
graph and fetches what ``merge_all()`` (or ``merge()``) returned: YOLOv3's
train.py (``self.write_op = tf.summary.merge_all()``, then ``sess.run([
train_op, self.write_op, self.loss, ...])``). The TF 2 ops add nothing to
the SUMMARIES collection, so ``merge_all()`` returns None and the run
raises ``TypeError: Argument `fetch` = None has invalid type "NoneType"``
(python -m tf1_train.compat without --v1, where ``tf.summary`` is TF 2's;
under --v1 it is TF 1.x's and the program runs as on TF 1.15.5). Without
such a fetch, the summaries are only lost: checks.py's
tf2-summary-in-v1-graph.
"""

import ast
from typing import Sequence, Tuple

from tf1_train.port.names import last_name
from tf1_train.port.rules import BREAKS, V1, _rule

ROW = "a merged summary of TF 2 summaries fetched"
KEY = "tf2-summary-merge-fetched"
_rule(
    KEY,
    BREAKS,
    "tf.compat.v1.summary.{name}: the TF 2 op adds nothing to the SUMMARIES collection, so "
    "merge_all() returns None (merge() raises TypeError) and the run that fetches it raises "
    "TypeError 'Argument `fetch` = None has invalid type'; unedited: python -m "
    "tf1_train.compat --v1 (tf.summary is TF 1.x's)",
    "reports 'converted to tf.compat.v1.summary.*' (INFO) but leaves tf.summary.{name} as it is",
    ROW,
)
MERGES = ("summary.merge_all", "summary.merge")
V1_OPS = tuple(V1 + "summary." + op for op in ("scalar", "histogram", "image", "audio", "text"))


def fetches_merged(trees: Sequence[Tuple[ast.AST, object]], paths: Sequence[str]) -> bool:
    """Whether a ``run`` of the program fetches what merge_all()/merge() returned,
    in a program that makes no TF 1.x summary op (which merge_all() would return)."""
    if any(p in V1_OPS for p in paths):
        return False
    for tree, resolve in trees:
        merged = {
            name
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and _merges(node.value, resolve)
            for name in map(last_name, node.targets)
            if name
        }
        if any(_fetches(node, merged, resolve) for node in ast.walk(tree)):
            return True
    return False


def _merges(value: ast.AST, resolve) -> bool:
    if not isinstance(value, ast.Call):
        return False
    path = resolve(value.func) or ""
    return path.startswith("tensorflow.") and path.endswith(MERGES)


def _fetches(node: ast.AST, merged: set, resolve) -> bool:
    """A ``x.run(fetches)`` call whose fetches are, or hold, a merged summary."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr != "run" or not node.args:
        return False
    fetches = node.args[0]
    if isinstance(fetches, (ast.List, ast.Tuple)):
        held = list(fetches.elts)
    elif isinstance(fetches, ast.Dict):
        held = list(fetches.values)
    else:
        held = [fetches]
    return any(last_name(f) in merged or _merges(f, resolve) for f in held)
