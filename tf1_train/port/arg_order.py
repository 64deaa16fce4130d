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
    "in-top-k-order",
    BREAKS,
    "tf.math.in_top_k(targets=labels, predictions=logits, k=k), or tf.compat.v1.nn.in_top_k "
    "(the TF1 order): TF 2's in_top_k takes (targets, predictions, k), so the TF1 call "
    "in_top_k(logits, labels, 1) feeds the logits as targets and raises InvalidArgumentError "
    "(about attr 'T' of float, or that predictions must be 2-dimensional)",
    "rewrites it with keywords in the TF1 order: right",
    ROW_ARG_ORDER,
)

XENT = tuple(
    p + "nn." + n + "_cross_entropy_with_logits"
    for p in ("tensorflow.", V1)
    for n in ("softmax", "sparse_softmax", "sigmoid", "weighted")
)
IN_TOP_K = ("tensorflow.nn.in_top_k", "tensorflow.math.in_top_k")


def findings(
    node: ast.Call, path: Optional[str]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule key, construct, fill-ins) for a positional call whose order changed."""
    if len(node.args) < 2:
        return
    if path in XENT:
        construct = ast.unparse(node.func) + "(logits, labels)"
        yield node, "xent-positional", construct, {"name": path.rsplit(".", 1)[-1]}
    if path in IN_TOP_K:
        yield node, "in-top-k-order", ast.unparse(node.func) + "(predictions, targets, ...)", {}
