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

The weights an optimizer trains move the same way: hunkim's
DeepLearningZeroToAll lab-02 fetches ``sess.run([train, cost, W, b])`` after
``train = ...minimize(cost)`` (TF 1.15.5 printed ``[1.9333334] [0.4]`` at
its first step, the runner's ``--v1`` ``[1.] [0.]``), lab-03 the
gradient-variable pairs beside the op that applies them (``sess.run(
[gradient, gvs, apply_gradients])``). So does a step a ``SessionRunHook``
fetches, ``before_run`` returning ``SessionRunArgs(get_global_step())``
while the session runs the train op (NVIDIA OpenSeq2Seq's hooks: 1 2 3 on
TF 1.15.5, 0 1 2 or 0 2 3 on 2.21).

Found: a ``run`` call whose fetches (a list, tuple or dict written there,
or a name bound to one in the same function) hold both a variable and an op
the program binds to its update: a ``minimize``/``apply_gradients`` given it
as ``global_step=``, or training it (a ``tf.Variable``/``get_variable`` of
the file not made with ``trainable=False``, or one of ``var_list=``, or the
pairs ``apply_gradients`` is given), its ``assign``/``assign_add``/
``assign_sub`` (method or ``tf.assign(v, ...)``), matched by their last
names (``self.train_op`` in the model's file, ``model.train_op`` in the
trainer's); and a ``SessionRunArgs`` whose fetches hold the global step
(``get_global_step()``) or such a variable.
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


STEP = "get_global_step()"  # what a global_step= given matches a fetched get_global_step() by
STEP_CALLS = ("get_global_step", "get_or_create_global_step")
VARIABLES = ("Variable", "get_variable")


def updates(trees: Sequence[ast.AST]) -> Tuple[Tuple[str, str], ...]:
    """(variable, op) by last name: the program binds ``op`` to an update of
    ``variable`` (an optimizer call given it as ``global_step=`` or training
    it, or its assign)."""
    pairs = set()
    for tree in trees:
        modules = imported_names(tree)
        trained = _Trained(tree, modules)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                targets = [t for t in map(last_name, node.targets) if t]
                for variable in _updated(node.value, modules, trained):
                    pairs.update((variable, op) for op in targets)
    return tuple(sorted(pairs))


def findings(
    tree: ast.AST, pairs: Sequence[Tuple[str, str]]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each ``run`` that fetches a variable beside an op that updates it (at the
    call), and each ``SessionRunArgs`` that fetches one the train op updates."""
    pairs = set(pairs)
    if not pairs:
        return
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]:
        nodes = _own(scope)
        lists = _fetch_lists(nodes)
        for node in nodes:
            found = _pair(_fetched(node, lists), pairs) or _hook_pair(node, lists, pairs)
            if found:
                variable, op = (f if isinstance(f, str) else ast.unparse(f) for f in found)
                yield node, "fetch-with-update", variable, {"variable": variable, "op": op}


def _name(node: ast.AST) -> Optional[str]:
    """How a fetch matches a variable: its last name, or STEP for ``get_global_step()``."""
    if isinstance(node, ast.Call) and last_name(node.func) in STEP_CALLS:
        return STEP
    return last_name(node)


def _pair(fetched: List[ast.AST], pairs: set) -> Optional[Tuple[ast.AST, ast.AST]]:
    for variable in fetched:
        for op in fetched:
            if op is not variable and (_name(variable), last_name(op)) in pairs:
                return variable, op
    return None


def _hook_pair(node: ast.AST, lists, pairs: set) -> Optional[Tuple[ast.AST, str]]:
    """A variable a hook's ``SessionRunArgs(fetches)`` asks for, which an op
    updates: the hook's fetches run beside the train op the session runs."""
    if not (isinstance(node, ast.Call) and last_name(node.func) == "SessionRunArgs"):
        return None
    fetches = node.args[0] if node.args else {k.arg: k.value for k in node.keywords}.get("fetches")
    if isinstance(fetches, ast.Name) and fetches.id in lists:
        fetched = lists[fetches.id]
    else:
        fetched = _elements(fetches) or ([fetches] if fetches is not None else [])
    ops = dict(pairs)
    for variable in fetched:
        if _name(variable) in ops:
            return variable, ops[_name(variable)]
    return None


class _Trained:
    """What an optimizer call in one file trains: the trainable variables the
    file makes (``W = tf.Variable(...)``, ``get_variable``), or those of its
    ``var_list``, by last name."""

    def __init__(self, tree: ast.AST, modules: set):
        self.variables, self.gradients = [], {}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                continue
            call, names = node.value, [t for t in map(last_name, node.targets) if t]
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "compute_gradients":
                self.gradients.update(dict.fromkeys(names, call))
            if last_name(func) in VARIABLES and chain_root(func) in modules and _trainable(call):
                self.variables.extend(names)

    def by(self, call: ast.Call) -> List[str]:
        """The variables ``minimize``/``compute_gradients``/``apply_gradients`` trains."""
        if call.func.attr == "apply_gradients":
            given = call.args[0] if call.args else _keyword(call, "grads_and_vars")
            made = self.gradients.get(given.id) if isinstance(given, ast.Name) else None
            return [given.id] + self.by(made) if made else self.variables
        given = _keyword(call, "var_list")
        if given is None and len(call.args) > (2 if call.func.attr == "minimize" else 1):
            given = call.args[2 if call.func.attr == "minimize" else 1]
        if given is None:
            return self.variables
        return [n for n in map(last_name, _elements(given)) if n]


def _keyword(call: ast.Call, name: str) -> Optional[ast.AST]:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _trainable(call: ast.Call) -> bool:
    flag = _keyword(call, "trainable")
    return not (isinstance(flag, ast.Constant) and flag.value is False)


def _updated(value: ast.AST, modules: set, trained: _Trained) -> List[str]:
    """The last names of the variables a call updates: an optimizer's
    ``global_step=`` and what it trains, ``v.assign(...)`` or ``tf.assign(v, ...)``."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return []
    name, owner = value.func.attr, value.func.value
    if name in UPDATERS:
        given = _keyword(value, "global_step")
        step = [_name(given), STEP] if given is not None else []
        return [n for n in step if n] + trained.by(value)
    if name not in ASSIGNS:
        return []
    if chain_root(owner) in modules:  # tf.assign(v, ...), tf.compat.v1.assign_add(v, ...)
        return [n for n in [last_name(value.args[0]) if value.args else None] if n]
    return [n for n in [last_name(owner)] if n]


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
