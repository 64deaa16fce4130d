"""A step counter made as ``tf.Variable(0, name='global_step')``, and what
looks it up by that name.

TensorFlow finds a program's step counter in the ``GLOBAL_STEP``
collection, else by the name ``global_step:0``. TF1 code bases that made
theirs by hand (Kyubyong's Tacotron, many tutorials) relied on the name: on
TF 1.x it was the variable's int32 reference, on TensorFlow 2.21's resource
variables it is the variable's handle. So ``tf.train.get_global_step()``,
``get_or_create_global_step()``, ``MonitoredTrainingSession`` and the hooks
that count steps raise TypeError, and a ``Supervisor`` built without
``global_step=`` runs without one: every summary it writes lands at step 0,
its checkpoints lose their step. Reported where the lookup happens, when
some file of the program names a variable so and none adds one to the
collection; ``python -m tf1_train.compat`` finds the variable again
(tf1_train/compat/_global_step.py), and ``--v1_variables`` brings TF 1.x's
reference variables back.
"""

import ast
from typing import Callable, Dict, Iterator, Optional, Tuple

from tf1_train.port.program import Program, in_api
from tf1_train.port.rules import BREAKS, CHANGES, LEAVES, _rule

ROW = "`tf.Variable(0, name='global_step')`"
_WHY = (
    "the program makes its step counter as a variable named 'global_step' that the "
    "GLOBAL_STEP collection does not hold, and TensorFlow 2's lookup by that name finds the "
    "resource variable's handle"
)
_FIX = (
    "make the counter with tf.train.get_or_create_global_step(), or add it: "
    "tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, global_step); unmodified, python -m "
    "tf1_train.compat finds it again (as --v1_variables does, with TF 1.x's variables)"
)
_rule(
    "global-step-by-name",
    BREAKS,
    _WHY + ', so {construct} raises TypeError: Existing "global_step" does not have integer '
    "type: <dtype: 'resource'>; " + _FIX,
    LEAVES,
    ROW,
)
_rule(
    "global-step-supervisor",
    CHANGES,
    _WHY + ", so the Supervisor warns once and runs without a step: every summary it writes "
    "lands at step 0 and its checkpoints have no step in their name; pass "
    "Supervisor(global_step=global_step), or " + _FIX,
    LEAVES,
    ROW,
)
# Lookups by name that raise on the handle (the hooks at begin(), inside a session).
RAISING = (
    "train.get_global_step",
    "train.get_or_create_global_step",
    "train.MonitoredTrainingSession",
    "train.StopAtStepHook",
    "train.CheckpointSaverHook",
    "train.SummarySaverHook",
    "train.StepCounterHook",
)
Resolve = Callable[[ast.AST], Optional[str]]


def names_a_step(tree: ast.AST, resolve: Resolve) -> bool:
    """Whether the file makes ``tf.Variable(..., name='global_step')`` or
    ``tf.get_variable('global_step', ...)`` outside any scope (a resource
    variable: not under ``use_resource=False``)."""
    scoped = _scoped(tree, resolve)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in scoped:
            continue
        path = resolve(node.func) or ""
        keywords = {k.arg: k.value for k in node.keywords}
        if _false(keywords.get("use_resource")):
            continue
        if in_api(path, ("Variable",)):
            name = keywords.get("name")
        elif in_api(path, ("get_variable",)):
            name = keywords.get("name", node.args[0] if node.args else None)
        else:
            continue
        if isinstance(name, ast.Constant) and name.value == "global_step":
            return True
    return False


def collects_a_step(tree: ast.AST, resolve: Resolve) -> bool:
    """Whether the file adds something to the GLOBAL_STEP collection."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and in_api(resolve(node.func) or "", ("add_to_collection",)):
            key = node.args[0] if node.args else None
            path = resolve(key) if key is not None else None
            if (path or "").endswith("GraphKeys.GLOBAL_STEP") or (
                isinstance(key, ast.Constant) and key.value == "global_step"
            ):
                return True
    return False


def findings(
    tree: ast.AST, resolve: Resolve, program: Program
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each lookup of the step by name."""
    if not program.named_step:
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        path = resolve(node.func) or ""
        construct = ast.unparse(node.func)
        if in_api(path, RAISING):
            yield node, "global-step-by-name", construct, {"construct": construct}
        elif in_api(path, ("train.Supervisor",)) and not any(
            k.arg == "global_step" for k in node.keywords
        ):
            yield node, "global-step-supervisor", construct, {"construct": construct}


def _scoped(tree: ast.AST, resolve: Resolve) -> set:
    """Ids of the nodes under ``with tf.variable_scope(...)`` / ``name_scope``
    (a variable there is 'scope/global_step', which no lookup by name meant)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
            isinstance(i.context_expr, ast.Call)
            and (resolve(i.context_expr.func) or "").endswith(("variable_scope", "name_scope"))
            for i in node.items
        ):
            out.update(id(n) for b in node.body for n in ast.walk(b))
    return out


def _false(node: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Constant) and node.value is False
