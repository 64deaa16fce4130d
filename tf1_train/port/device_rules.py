"""The rule on device functions that tell variables by their op type:
``op.type in ('Variable', 'VariableV2')``, ``node_def.op.startswith('Variable')``,
or ``node_def.op in PS_OPS`` with ``PS_OPS = ['Variable', 'VariableV2',
'AutoReloadVariable']`` (the multi-GPU examples' ``assign_to_device``, copied
into many code bases). TF 2's ``get_variable`` makes resource variables
(``VarHandleOp``), so such a chooser no longer sees them: every variable stays
on the tower's or worker's device, without an error. ``op.type == 'Variable'``
alone is not reported: TF 1.x's variables were ``VariableV2`` ops since 1.0,
so that test found none on TF 1.x either (XLNet's ``assign_to_gpu``; checked
on TensorFlow 1.15.5).
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.rules import CHANGES, ROW_VARIABLE_OPS, _rule

_rule(
    "variable-op-type",
    CHANGES,
    "match 'VarHandleOp' too (or use tf.compat.v1.train.replica_device_setter, which does): "
    "TF 2's get_variable makes resource variables, so a test for 'Variable' / 'VariableV2' "
    "no longer finds them: a device chooser leaves every variable on the worker device, "
    "unshared between workers (with towers: on the first tower's device, not the parameter "
    "device it names); other code looking for variable ops lists their reads as its own "
    "(StyleGAN's layer table shows ReadVariableOp rows)",
    "leaves it unchanged and reports nothing",
    ROW_VARIABLE_OPS,
)
REF_VARIABLE_OPS = ("Variable", "VariableV2", "VariableV1")
# What TF 1.x's variables were since 1.0: a test for 'Variable' alone (TF 0.x's op, kept in
# XLNet's and Transformer-XL's `assign_to_gpu`) never matched them, so nothing changes.
TF1_OP = "VariableV2"


def variable_op_tests(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """`op.type in ('Variable', 'VariableV2')`, `node_def.op.startswith('Variable')`,
    `node_def.op in PS_OPS` (a name bound to such a list: the multi-GPU examples'
    `assign_to_device`), ... in a scope (function or module) that never names
    'VarHandleOp'."""
    lists = _string_lists(tree)
    for node in tests_outside(tree, lambda n: _tests_ref_variable_ops(n, lists), ("VarHandleOp",)):
        yield node, "variable-op-type", ast.unparse(node), {}


def tests_outside(tree: ast.AST, test, names) -> Iterator[ast.AST]:
    """The nodes ``test`` accepts, each once, outside any scope (function or
    module, innermost first) that names one of the string constants ``names``:
    such a scope already handles TF 2's ops."""
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    done = set()  # the nodes reported, and those of scopes that name one of ``names``
    for scope in reversed(scopes):  # innermost first
        nodes = list(ast.walk(scope))
        if any(isinstance(c, ast.Constant) and c.value in names for c in nodes):
            done |= {id(n) for n in nodes}
            continue
        for node in nodes:
            if id(node) not in done and test(node):
                done.add(id(node))
                yield node


def _string_lists(tree: ast.AST) -> Dict[str, list]:
    """Names bound to a literal list, tuple or set: their string constants."""
    literal = (ast.List, ast.Tuple, ast.Set)
    return {
        n.targets[0].id: [e.value for e in n.value.elts if isinstance(e, ast.Constant)]
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name) and isinstance(n.value, literal)
    }  # fmt: skip


def _tests_ref_variable_ops(node: ast.AST, lists: Dict[str, list]) -> bool:
    """Whether a comparison or a startswith() call tests against REF_VARIABLE_OPS
    (its constants, or a name bound to a list of them without 'VarHandleOp')."""
    if isinstance(node, ast.Compare):
        parts = [node.left, *node.comparators]
    elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "startswith":
        parts = list(node.args)
    else:
        return False
    values = [c.value for p in parts for c in ast.walk(p) if isinstance(c, ast.Constant)]
    for part in parts:
        listed = lists.get(part.id, []) if isinstance(part, ast.Name) else []
        if "VarHandleOp" not in listed:
            values += listed
    if not isinstance(node, ast.Compare):  # startswith('Variable') found TF 1.x's VariableV2
        return any(isinstance(v, str) and v and TF1_OP.startswith(v) for v in values)
    substring = isinstance(node.left, ast.Constant) and isinstance(node.ops[0], ast.In)
    return any(v in REF_VARIABLE_OPS[1:] for v in values) or (
        substring and node.left.value in REF_VARIABLE_OPS
    )
