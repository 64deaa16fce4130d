"""A variable fetched in the same run as the op that updates it: the step
counter beside the train op that increments it, ``_, step, loss =
sess.run([train_op, global_step, loss])`` after ``train_op =
optimizer.apply_gradients(..., global_step=global_step)``
(dennybritz/cnn-text-classification-tf and its many copies, XLNet's
``train_gpu.py``), or a variable beside its own assign op, ``sess.run([
self.update_k, ..., self.k])`` after ``self.update_k = self.k.assign(...)``
(BEGAN's equilibrium term in hwalsuklee's generative-model collections).

A TF 1.x reference variable was fetched as its buffer, read when the run
had ended, so the loop saw the value after the update. A TF 2 resource
variable is fetched through a read op that waits for nothing, so the loop
sees the value before or after the update, whichever ran first: nearly
always before where the backward pass takes time (300 of 300 steps of a
256-example batch), either way from one step to the next in a graph of a
few ops (tests/legacy_scripts/step_fetch_style.py). Nothing raises; steps
printed, summaries written at ``step``, checkpoints named by it, a learning
rate logged beside it and a loop that stops when ``step >= N`` (one train op
more) move by one.

Found: a ``run`` call whose fetches (a list, tuple or dict written there,
or a name bound to one in the same function) hold both a variable and an op
the program binds to its update: a ``minimize``/``apply_gradients`` given it
as ``global_step=``, its ``assign``/``assign_add``/``assign_sub`` (method or
``tf.assign(v, ...)``), matched by their last names (``self.train_op`` in
the model's file, ``model.train_op`` in the trainer's).
"""

import ast
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from tf1_train.port.names import chain_root, imported_names, last_name
from tf1_train.port.rules import CHANGES, _rule
from tf1_train.port.variable_rules import _FUNCTIONS, _own

ROW = "a variable fetched with the op that updates it"
UPDATERS = ("minimize", "apply_gradients")
ASSIGNS = ("assign", "assign_add", "assign_sub")
_rule(
    "fetch-with-update",
    CHANGES,
    "fetch {variable} in a run of its own after this one (sess.run({variable})), or allow for "
    "the update where the value before it is what this run gives: a resource variable's read "
    "waits for nothing, so this run returns {variable} before or after {op} updates it, "
    "whichever runs first (in a large graph nearly always before), where TF 1.x's reference "
    "variable, read when the run had ended, gave the value after; a step fetched so moves by "
    "one in what is logged, in the summaries and checkpoints written at it and in a loop "
    "that stops on it; unedited: python -m tf1_train.compat --v1_variables (TF 1.x's "
    "reference variables)",
    "leaves it unchanged and reports nothing",
    ROW,
)


def updates(trees: Sequence[ast.AST]) -> Tuple[Tuple[str, str], ...]:
    """(variable, op) by last name: the program binds ``op`` to an update of
    ``variable`` (an optimizer call given it as ``global_step=``, or its assign)."""
    pairs = set()
    for tree in trees:
        modules = imported_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                variable = _updated(node.value, modules)
                targets = filter(None, (last_name(t) for t in node.targets))
                pairs.update((variable, op) for op in targets if variable)
    return tuple(sorted(pairs))


def findings(
    tree: ast.AST, pairs: Sequence[Tuple[str, str]]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each ``run`` that fetches a variable beside an op that updates it (at the call)."""
    pairs = set(pairs)
    if not pairs:
        return
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]:
        nodes = _own(scope)
        lists = _fetch_lists(nodes)
        for node in nodes:
            found = _pair(_fetched(node, lists), pairs)
            if found:
                variable, op = (ast.unparse(f) for f in found)
                yield node, "fetch-with-update", variable, {"variable": variable, "op": op}


def _pair(fetched: List[ast.AST], pairs: set) -> Optional[Tuple[ast.AST, ast.AST]]:
    for variable in fetched:
        for op in fetched:
            if op is not variable and (last_name(variable), last_name(op)) in pairs:
                return variable, op
    return None


def _updated(value: ast.AST, modules: set) -> Optional[str]:
    """The last name of the variable a call updates: an optimizer's ``global_step=``,
    ``v.assign(...)`` or ``tf.assign(v, ...)`` (a module's function)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    name, owner = value.func.attr, value.func.value
    if name in UPDATERS:
        given = next((k.value for k in value.keywords if k.arg == "global_step"), None)
        return last_name(given) if given is not None else None
    if name not in ASSIGNS:
        return None
    if chain_root(owner) in modules:  # tf.assign(v, ...), tf.compat.v1.assign_add(v, ...)
        return last_name(value.args[0]) if value.args else None
    return last_name(owner)


def _fetch_lists(nodes: List[ast.AST]) -> Dict[str, List[ast.AST]]:
    """Names this scope binds once, to a list or tuple written out (``fetches = [...]``)."""
    bound: Dict[str, List[List[ast.AST]]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                elements = _elements(node.value)
                bound.setdefault(target.id, []).append(elements)
    return {name: found[0] for name, found in bound.items() if len(found) == 1 and found[0]}


def _fetched(node: ast.AST, lists: Dict[str, List[ast.AST]]) -> List[ast.AST]:
    """What a ``x.run(fetches, ...)`` call fetches, when that can be read here."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return []
    if node.func.attr != "run":
        return []
    keywords = {k.arg: k.value for k in node.keywords}
    fetches = node.args[0] if node.args else keywords.get("fetches")
    if isinstance(fetches, ast.Name):
        return lists.get(fetches.id, [])
    return _elements(fetches) if fetches is not None else []


def _elements(value: ast.AST) -> List[ast.AST]:
    if isinstance(value, (ast.List, ast.Tuple)):
        return list(value.elts)
    if isinstance(value, ast.Dict):
        return list(value.values)
    return []
