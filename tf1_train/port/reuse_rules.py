"""A variable that a function both reads and assigns while it is built, when
the function is built more than once on that variable: spectral norm's
power iteration, ``u = tf.get_variable('u', ..., trainable=False)``, read,
then ``with tf.control_dependencies([u.assign(u_hat)]):`` (taki0112's
Self-Attention-GAN, copied into most TF1 GANs with spectral norm), in a
discriminator built on real and on fake images with ``reuse=True``.

On TF 1.x every read of a reference variable in one run went through its
``/read`` snapshot, and ``Assign`` wrote a new buffer while that snapshot
was held, so both builds read the value the run started with. On TF 2 each
read is a ``ReadVariableOp`` of its own, ordered after no other build's
assign: the second build reads ``u`` before or after the first one assigned
it, differently from run to run. tests/legacy_scripts/spectral_norm_style.py
gave 6 different loss lists in 6 runs on TensorFlow 2.21, and TensorFlow
1.15.5's list every time under ``--v1_variables``, or with
``caching_device=''`` given to that ``get_variable``: the variable is then
read once per run, at its creation's cached read, which every build's
assign waits for.

Found: in a function, a name bound only to ``get_variable`` without
``caching_device=`` (what ``reuse`` shares; ``tf.Variable`` makes a new one
per build) that the function reads
and gives to ``.assign(...)`` or ``tf.assign(name, ...)``. Whether the
function is built twice in one run is not known here, so the fix says when
the numbers change. ``assign_add``/``assign_sub`` update in place on TF 1.x
too, whose reads then raced as well, and are not reported; nor is a
``get_variable`` in a loop whose name comes from the loop's item (BERT's,
ALBERT's and XLNet's ``AdamWeightDecayOptimizer``: one slot per weight, read
and assigned once a build; XLNet's steps gave TF 1.15.5's numbers to 1e-6 on
resource variables, measured 2026-12-07).
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.names import chain_root, imported_names
from tf1_train.port.rules import CHANGES, _rule
from tf1_train.port.variable_rules import _own, _variables

ROW = "a variable read and assigned in a function built twice"
GETTERS = tuple(p + n for p in ("tensorflow.compat.v1.", "tensorflow.") for n in ("get_variable",))
_rule(
    "variable-assign-on-reuse",
    CHANGES,
    "nothing to change where this function is built once per variable; where it is built "
    "again on the same {name} (reuse=True: a discriminator on real and on fake images), each "
    "build's read of {name} is ordered after no other build's assign on TF 2's resource "
    "variables, so a build may read the value another just assigned, differently from run "
    "to run, where TF 1.x's builds all read the value the run started with (spectral norm's "
    "estimate and the losses move); give {name} one read every build shares, "
    "tf.get_variable(..., caching_device='') (TF 1.x's numbers on both), or unedited: python "
    "-m tf1_train.compat --v1_variables (TF 1.x's reference variables)",
    "leaves it unchanged and reports nothing",
    ROW,
)


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """The first assign of each name a function binds to ``get_variable`` and also reads."""
    modules = imported_names(tree)

    def getter(call: ast.AST, resolve, helpers) -> str:
        shared = isinstance(call, ast.Call) and resolve(call.func) in GETTERS
        cached = shared and any(k.arg == "caching_device" for k in call.keywords)
        return "get_variable" if shared and not cached else ""

    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes = _own(scope)
        shared = set(_variables(nodes, resolve, {}, getter)) - _per_item(nodes, resolve)
        assigns = [(n, _assigned(n, modules)) for n in nodes]
        assigns = [(n, name) for n, name in assigns if name in shared]
        receivers = {id(_receiver(n, modules)) for n, _ in assigns}
        read = _read(nodes, receivers)
        done: Set[str] = set()
        for node, name in sorted(assigns, key=lambda a: (a[0].lineno, a[0].col_offset)):
            if name in read and name not in done:
                done.add(name)
                yield node, "variable-assign-on-reuse", ast.unparse(node.func), {"name": name}


def _per_item(nodes, resolve) -> Set[str]:
    """Names bound in a ``for`` loop to a ``get_variable`` whose variable name
    comes from the loop's item (``name=param_name + "/adam_m"`` with
    ``param_name`` made from ``param`` of ``for (grad, param) in
    grads_and_vars``: BERT's, ALBERT's and XLNet's AdamWeightDecayOptimizer):
    one variable per item, read and assigned once in a build, so no two
    reads of one build wait on each other's assign."""
    out: Set[str] = set()
    for loop in (n for n in nodes if isinstance(n, (ast.For, ast.AsyncFor))):
        varying = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        body = [n for stmt in loop.body for n in ast.walk(stmt)]
        for node in body:  # names the body computes from the item, in order
            if isinstance(node, ast.Assign) and _mentions(node.value, varying):
                varying |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        for node in body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            call, target = node.value, node.targets[0]
            if not (isinstance(target, ast.Name) and isinstance(call, ast.Call)):
                continue
            if resolve(call.func) not in GETTERS:
                continue
            named = call.args[:1] + [k.value for k in call.keywords if k.arg == "name"]
            if named and _mentions(named[0], varying):
                out.add(target.id)
    return out


def _mentions(node: ast.AST, names: Set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _assigned(node: ast.AST, modules: Set[str]) -> str:
    """The name ``node`` assigns: ``name.assign(...)`` or ``tf.assign(name, ...)``."""
    receiver = _receiver(node, modules)
    return receiver.id if isinstance(receiver, ast.Name) else ""


def _receiver(node: ast.AST, modules: Set[str]):
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr != "assign":
        return None
    if chain_root(node.func.value) in modules:
        return node.args[0] if node.args else None
    return node.func.value


def _read(nodes, receivers: Set[int]) -> Set[str]:
    """Names loaded in the scope other than as an assign's receiver."""
    return {
        n.id
        for n in nodes
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in receivers
    }
