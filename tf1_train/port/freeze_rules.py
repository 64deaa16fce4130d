"""The batch-norm fix of TF 1.x freeze scripts (TensorFlow issue 3628,
copied into facenet's ``freeze_graph.py`` and many export scripts): before
``convert_variables_to_constants``, ``RefSwitch`` nodes became ``Switch`` and
the moving averages' ``AssignSub`` updates became ``Sub``, so the frozen
graph no longer wrote to the constants the variables turned into. With TF 2's
resource variables those ops are not there: the update is an
``AssignSubVariableOp`` in a cond branch function, the rewrite matches
nothing, and the frozen graph raises when it runs ("input resource[0]
expected type resource != float"). tests/test_port_scan_freeze.py runs both.

Also here, the other graph files TF 1.x wrote: ``import_meta_graph`` of a
``.meta`` with a fused batch norm's gradient (matched by name in paths.py;
compat/_graph_import.py has the cause and the fix).
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.device_rules import tests_outside
from tf1_train.port.rules import BREAKS, _rule

ROW_FREEZE = "the freeze scripts' batch-norm fix"
FIX = (
    "for each node of gd.node and of each gd.library.function's node_def whose op is "
    "'AssignSubVariableOp' or 'AssignAddVariableOp': node.op = 'NoOp', keep only its '^' "
    "control inputs, node.attr.clear()"
)
_rule(
    "freeze-ref-ops",
    BREAKS,
    "before convert_variables_to_constants, make the resource-variable updates no-ops, in "
    "the graph and in its functions (a batch norm's update sits in a cond branch): " + FIX + ". "
    "TF 2's resource variables have no 'RefSwitch' or 'AssignSub' ops, so this rewrite "
    "matches nothing and the frozen graph raises InvalidArgumentError ('expected type "
    "resource != float') when it runs; or run it unmodified with python -m tf1_train.compat "
    "--v1_variables (TF 1.x's reference variables and control flow: the rewrite then works)",
    "leaves it unchanged and reports nothing",
    ROW_FREEZE,
)
_rule(
    "import-meta-graph",
    BREAKS,
    "when the .meta was written by TF 1.x and trains a fused batch norm (a training graph: "
    "facenet's released models), the import stops at 'has an _output_shapes attribute "
    "inconsistent with the GraphDef' (TF 2 infers the gradient's reserve outputs empty); by "
    "hand: delete the _output_shapes attr of its FusedBatchNormGrad* nodes before importing "
    "the MetaGraphDef; unmodified: tf1_train.compat.install() does that on import, and the "
    "graph predicts and trains on to TF 1.15.5's numbers; a .meta written on TF 2 imports as "
    "it is",
    "renames tf.train.import_meta_graph to tf.compat.v1.train.import_meta_graph, which raises "
    "the same",
    "`tf.train.import_meta_graph` of a graph TF 1.x wrote",
)
REF_UPDATE_OPS = ("RefSwitch", "AssignSub", "AssignAdd")
RESOURCE_UPDATE_OPS = ("AssignSubVariableOp", "AssignAddVariableOp")


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each test of a node's ``op`` against REF_UPDATE_OPS, in a scope
    (function or module) that does not also name RESOURCE_UPDATE_OPS."""
    for node in tests_outside(tree, _tests_ref_update, RESOURCE_UPDATE_OPS):
        yield node, "freeze-ref-ops", ast.unparse(node), {}


def _tests_ref_update(node: ast.AST) -> bool:
    """``node.op == 'RefSwitch'``, ``n.op in ('AssignSub', ...)``."""
    if not isinstance(node, ast.Compare):
        return False
    if not (isinstance(node.left, ast.Attribute) and node.left.attr == "op"):
        return False
    values = [c.value for p in node.comparators for c in ast.walk(p) if isinstance(c, ast.Constant)]
    return any(v in REF_UPDATE_OPS for v in values)
