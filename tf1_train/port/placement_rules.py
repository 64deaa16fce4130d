"""A queue or accumulator shared by name across workers, made without a device.

TF 1.15's placer put an op without a device on the cluster's first device,
the ps, the same for every worker, so a ``FIFOQueue(..., shared_name=...)``
that each worker of a between-graph program built was one queue: a start
barrier or a token queue worked. TensorFlow 2.21's placer puts it on the
session's own task, so each worker has a queue of its own and a token never
arrives: the barrier waits forever, without an error
(tests/test_compat_contrib_opt_cluster.py measures both on one ps and two
workers). ``install()`` does not change placement.

Found: a queue or accumulator constructor given a ``shared_name=`` in a file
that builds a cluster (``ClusterSpec``, ``Server``, ``replica_device_setter``),
outside every ``with tf.device(...)`` and ``colocate_with(...)`` of its
function or module (a device given, whichever, is the same on both), and
not in a helper of the file that is only called inside one; not when the
next session its function or module makes is an in-process ``tf.Session()``
with no target (a graph no cluster runs).
tests/port_scan_cases_runtime.py has the cases.
"""

import ast
from typing import Dict, Iterator, List, Set, Tuple

from tf1_train.port.rules import BREAKS, _rule
from tf1_train.port.variable_rules import _FUNCTIONS, _own, _position

ROW = "an op a between-graph program leaves without a device"
KEY = "unplaced-shared-queue"
_rule(
    KEY,
    BREAKS,
    "TF 1.15 placed an op without a device on the cluster's first device (the ps) for "
    "every worker, so this queue shared by name was one queue; TensorFlow 2.21 puts it on "
    "each worker's own task, where no other worker's token arrives (a barrier waits "
    "forever): build it under with tf.device('/job:ps/task:0')",
    "leaves it unchanged and reports nothing",
    ROW,
)
SHARED = ("FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue",
          "ConditionalAccumulator", "SparseConditionalAccumulator", "Barrier")  # fmt: skip
CLUSTER = ("ClusterSpec", "Server", "replica_device_setter")
SESSIONS = ("Session", "InteractiveSession", "MonitoredTrainingSession", "managed_session")
SCOPES = ("device", "colocate_with")


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    paths = [resolve(n) or "" for n in ast.walk(tree) if isinstance(n, (ast.Attribute, ast.Name))]
    if not any(p.startswith("tensorflow") and p.rsplit(".", 1)[-1] in CLUSTER for p in paths):
        return
    local = _locally_run(tree, resolve)
    for node in _outside_device_scopes(tree, resolve):
        if not isinstance(node, ast.Call) or id(node) in local:
            continue
        path = resolve(node.func) or ""
        shared = [k for k in node.keywords if k.arg == "shared_name"]
        if path.startswith("tensorflow") and path.rsplit(".", 1)[-1] in SHARED and shared:
            if not (isinstance(shared[0].value, ast.Constant) and shared[0].value.value is None):
                yield node, KEY, ast.unparse(node.func), {}


def _locally_run(tree: ast.AST, resolve) -> Set[int]:
    """The calls whose next session in their own function or module is an
    in-process one, ``tf.Session()`` given no target: that graph runs on no
    cluster (handson-ml's chapter 12 reads a CSV through a shared-name queue
    so, beside its cluster cells)."""
    local: Set[int] = set()
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]:
        calls = sorted((n for n in _own(scope) if isinstance(n, ast.Call)), key=_position)
        sessions = [c for c in calls if (resolve(c.func) or "").rsplit(".", 1)[-1] in SESSIONS]
        for call in calls:
            later = [s for s in sessions if _position(s) > _position(call)]
            if later and not (later[0].args or later[0].keywords):
                local.add(id(call))
    return local


def _outside_device_scopes(tree: ast.AST, resolve) -> List[ast.AST]:
    """Every node not inside a ``with`` whose item calls tf.device or
    colocate_with, nor in a function of the file that is only called inside
    one (a helper its caller places; a scope entered in another file is not
    seen)."""
    placed = _placed_helpers(tree, resolve)
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in placed:
            continue
        out.append(node)
        if _is_scoped_with(node, resolve):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _placed_helpers(tree: ast.AST, resolve) -> Set[str]:
    """Names of the file's functions that are called, by name, only inside a
    device scope or inside another such function (to a fixed point)."""
    placed: Set[str] = set()
    while True:
        inside, outside, todo = set(), set(), [(tree, False)]
        while todo:
            node, scoped = todo.pop()
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                (inside if scoped else outside).add(node.func.id)
            defined = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            scoped = scoped or _is_scoped_with(node, resolve) or (defined and node.name in placed)
            todo.extend((child, scoped) for child in ast.iter_child_nodes(node))
        found = inside - outside
        if found == placed:
            return placed
        placed = found


def _is_scoped_with(node: ast.AST, resolve) -> bool:
    return isinstance(node, (ast.With, ast.AsyncWith)) and any(
        _is_scope(item.context_expr, resolve) for item in node.items
    )


def _is_scope(expr: ast.AST, resolve) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    path = resolve(expr.func) or ""
    return path.startswith("tensorflow") and path.rsplit(".", 1)[-1] in SCOPES
