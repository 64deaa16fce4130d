"""Calls whose positional arguments mean something else on TensorFlow 2.21.

The name stayed, the order did not: a call that passes the arguments by
position silently swaps their roles, or fails with an error that does not say
why. Keyword calls are safe, so only positional ones are reported.
"""

import ast
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.port.rules import BREAKS, CHANGES, ROW_ARG_ORDER, V1, _rule

_rule(
    "xent-positional",
    CHANGES,
    "name both: tf.nn.{name}(labels=..., logits=...). TF 0.x took (logits, labels), TF 2.21 "
    "takes (labels, logits) (TF 1.x refused positional calls): the roles swap silently, and "
    "with tf.compat.v1's version minimize() finds no gradients",
    "softmax: adds keywords in TF 2's order and wraps the first argument (the logits) in "
    "tf.stop_gradient, keeping the swap; the sparse and sigmoid versions it leaves unchanged",
    ROW_ARG_ORDER,
)
_rule(
    "xent-positional-sparse",
    BREAKS,
    "name both: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=..., logits=...). TF 0.x "
    "took (logits, labels), TF 1.x refused positional calls (ValueError: Only call ... with "
    "named arguments), TF 2.21 takes (labels, logits): the swapped call raises there with an "
    "error about something else (ValueError: `labels.shape.rank` must equal "
    "`logits.shape.rank - 1`), as integer labels never pass for the float logits",
    "leaves it unchanged and reports nothing",
    ROW_ARG_ORDER,
)
_rule(
    "in-top-k-order",
    BREAKS,
    "tf.math.in_top_k(targets=labels, predictions=logits, k=k), or tf.compat.v1.nn.in_top_k "
    "(the TF1 order): TF 2's in_top_k takes (targets, predictions, k), so the TF1 call "
    "in_top_k(logits, labels, 1) feeds the logits as targets and raises InvalidArgumentError "
    "(about attr 'T' of float, or that predictions must be 2-dimensional)",
    "rewrites it with keywords in the TF1 order: right",
    ROW_ARG_ORDER,
)

_rule(
    "tf0-concat-split-order",
    BREAKS,
    "{fix}: TF 0.x took the axis first (concat(axis, values), split(axis, num, value)); TF 1.0 "
    "moved it last, so this call raises an error about something else (ValueError: Shape ... "
    "must have rank 0, or Split's input #0 expected to be an int32 tensor)",
    "leaves it unchanged and reports nothing (tf_upgrade, TF 1.0's script, reordered it)",
    ROW_ARG_ORDER,
)

XENT = tuple(
    p + "nn." + n + "_cross_entropy_with_logits"
    for p in ("tensorflow.", V1)
    for n in ("softmax", "sparse_softmax", "sigmoid", "weighted")
)
IN_TOP_K = ("tensorflow.nn.in_top_k", "tensorflow.math.in_top_k")
CONCAT = ("tensorflow.concat", V1 + "concat")
SPLIT = ("tensorflow.split", V1 + "split")


def _int_literal(node: ast.AST) -> bool:
    """``3``, ``-1``: an axis, never the values TF 1.x's concat and split take first."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _tf0_order(node: ast.Call, path: Optional[str]) -> Optional[str]:
    """The fix for a TF 0.x ``concat``/``split`` call, if it is one."""
    if not _int_literal(node.args[0]):
        return None
    axis, rest = ast.unparse(node.args[0]), [ast.unparse(a) for a in node.args[1:]]
    if path in CONCAT and len(rest) == 1:
        return f"tf.concat({rest[0]}, {axis})"
    if path in SPLIT and len(rest) == 2:
        return f"tf.split({rest[1]}, {rest[0]}, {axis})"
    return None


def findings(
    node: ast.Call, path: Optional[str]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule key, construct, fill-ins) for a positional call whose order changed."""
    if len(node.args) < 2:
        return
    if path in XENT:
        construct = ast.unparse(node.func) + "(logits, labels)"
        name = path.rsplit(".", 1)[-1]
        key = "xent-positional-sparse" if name.startswith("sparse_") else "xent-positional"
        yield node, key, construct, {"name": name}
    if path in IN_TOP_K:
        yield node, "in-top-k-order", ast.unparse(node.func) + "(predictions, targets, ...)", {}
    fix = _tf0_order(node, path)
    if fix:
        yield node, "tf0-concat-split-order", ast.unparse(node), {"fix": fix}
