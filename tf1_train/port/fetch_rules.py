"""A step counter fetched in the same run as the train op that increments it:
``_, step, loss = sess.run([train_op, global_step, loss])`` after
``train_op = optimizer.apply_gradients(..., global_step=global_step)``
(dennybritz/cnn-text-classification-tf and its many copies, XLNet's
``train_gpu.py``).

A TF 1.x reference variable was fetched as its buffer, read when the run
had ended, so the loop saw the step after the update. A TF 2 resource
variable is fetched through a read op that waits for nothing, so the loop
sees the step before or after the update, whichever ran first: nearly
always before where the backward pass takes time (300 of 300 steps of a
256-example batch), either way from one step to the next in a graph of a
few ops (tests/legacy_scripts/step_fetch_style.py). Nothing raises; steps
printed, summaries written at ``step``, checkpoints named by it, a learning
rate logged beside it and a loop that stops when ``step >= N`` (one train op
more) move by one.

Found: a ``run`` call whose fetches (a list, tuple or dict written there,
or a name bound to one in the same function) hold both something the
program passes as ``global_step=`` to ``minimize``/``apply_gradients`` and
something it binds such a call to, matched by their last name
(``self.train_op`` in the model's file, ``model.train_op`` in the trainer's).
"""

import ast
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from tf1_train.port.rules import CHANGES, _rule
from tf1_train.port.variable_rules import _FUNCTIONS, _own

ROW = "the step fetched with the train op"
UPDATERS = ("minimize", "apply_gradients")
_rule(
    "fetch-step-with-update",
    CHANGES,
    "fetch {step} in a run of its own after the update (tf.train.global_step(sess, {step})), "
    "or add 1 where it is used: a resource variable's read waits for nothing, so this run "
    "returns the step before or after {op} increments it, whichever runs first (in a large "
    "graph nearly always before), where TF 1.x's reference variable, read when the run had "
    "ended, gave the step after; the steps logged, the summaries and checkpoints written at "
    "it and a loop that stops on it move by one; unedited: python -m tf1_train.compat "
    "--v1_variables (TF 1.x's reference variables)",
    "leaves it unchanged and reports nothing",
    ROW,
)


def updates(trees: Sequence[ast.AST]) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(steps, ops): the last names of what the program gives an optimizer's
    ``minimize``/``apply_gradients`` as ``global_step=``, and of what it binds
    such a call to."""
    steps, ops = set(), set()
    for tree in trees:
        for node in ast.walk(tree):
            step = _stepping(node)
            if step:
                steps.add(step)
            if isinstance(node, ast.Assign) and _stepping(node.value):
                ops.update(filter(None, (_last(t) for t in node.targets)))
    return tuple(sorted(steps)), tuple(sorted(ops))


def findings(
    tree: ast.AST, steps: Sequence[str], ops: Sequence[str]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each ``run`` that fetches a step beside an op that increments it (at the call)."""
    if not steps or not ops:
        return
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]:
        nodes = _own(scope)
        lists = _fetch_lists(nodes)
        for node in nodes:
            fetched = _fetched(node, lists)
            step = next((f for f in fetched if _last(f) in steps), None)
            op = next((f for f in fetched if _last(f) in ops and f is not step), None)
            if step is not None and op is not None:
                fills = {"step": ast.unparse(step), "op": ast.unparse(op)}
                yield node, "fetch-step-with-update", ast.unparse(step), fills


def _stepping(node: ast.AST) -> Optional[str]:
    """The last name of the ``global_step=`` an optimizer call is given, if it is one."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr not in UPDATERS:
        return None
    given = next((k.value for k in node.keywords if k.arg == "global_step"), None)
    return _last(given) if given is not None else None


def _last(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


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
