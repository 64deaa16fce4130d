"""Variables made inside a ``tf.cond`` branch: TF 2 drops the cond's name.

TF 1.x's conds built their branches in the graph itself, under the cond's
name scope, so a variable a branch made was ``cond/beta1_power``. TF 2's
conds (an op with a function per branch) lift it out of the branch without
that scope: ``beta1_power``. A TF 1.x checkpoint then does not restore
(``NotFoundError: Key beta1_power not found in checkpoint``). The usual way
in is an optimizer applied in a branch, which makes its own variables there
(Adam's ``beta1_power`` and ``beta2_power``): a hand-written skip on an
overflowing gradient (OpenSeq2Seq's ``tf.cond(skip, tf.no_op, lambda:
opt.apply_gradients(...))``), and TensorFlow's own loss-scale optimizer
behind ``enable_mixed_precision_graph_rewrite`` (DeepSpeech's
``cond_1/beta1_power``). Slot variables keep their names (they are named
after the variable they belong to). Measured against TensorFlow 1.15.5
(tests/legacy_scripts/cond_optimizer_style.py); ``--v1_control_flow`` (or
``--v1_variables``) builds TF 1.x's conds and their names.
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.names import last_name
from tf1_train.port.rules import BREAKS, _rule

ROW = (
    "an optimizer applied or a variable made inside a `tf.cond` branch (a skip on an "
    "overflowing gradient; the loss-scale optimizer of `enable_mixed_precision_graph_rewrite`)"
)
KEY = "cond-branch-variable"
_rule(
    KEY,
    BREAKS,
    "a TF 1.x checkpoint does not restore: TF 2's conds drop the cond's name scope from the "
    "variables a branch makes, so Adam's cond/beta1_power and cond/beta2_power (and any "
    "get_variable or Variable in the branch) are saved and looked up without it (NotFoundError: "
    "Key beta1_power not found in checkpoint); unmodified: python -m tf1_train.compat "
    "--v1_control_flow (TF 1.x's conds, their names); ported: make the optimizer's variables "
    "before the cond (opt._create_slots / a first apply outside it) or map the names when "
    "converting the checkpoint",
    "leaves it unchanged and reports nothing",
    ROW,
)
CONDS = ("cond", "smart_cond")
APPLIES = ("apply_gradients", "minimize")
MAKES = ("get_variable", "Variable")
# the optimizers with no variable of their own besides slots: nothing is renamed
NO_OWN_VARIABLES = (
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "RMSPropOptimizer",
    "AdagradOptimizer",
    "AdadeltaOptimizer",
    "FtrlOptimizer",
    "ProximalGradientDescentOptimizer",
    "ProximalAdagradOptimizer",
)
WRAPPERS = ("enable_mixed_precision_graph_rewrite", "MixedPrecisionLossScaleOptimizer")


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    paths = {id(n): resolve(n.func) or "" for n in calls}
    made = _optimizers_made(tree, paths)
    for body in _branches(tree, calls, paths):
        for node in ast.walk(body):
            if not isinstance(node, ast.Call):
                continue
            name = last_name(node.func)
            path = paths.get(id(node), "")
            if isinstance(node.func, ast.Attribute) and name in APPLIES:
                if _own_variables(node.func, made):
                    yield node, KEY, ast.unparse(node.func), {}
            elif path.startswith("tensorflow") and name in MAKES:
                yield node, KEY, ast.unparse(node.func), {}
    for node in calls:
        path = paths[id(node)]
        if path.startswith("tensorflow") and path.rsplit(".", 1)[-1] in WRAPPERS:
            wrapped = node.args[:1] + [k.value for k in node.keywords if k.arg == "opt"]
            if not wrapped or _maybe_own(wrapped[0], made, paths):
                yield node, KEY, ast.unparse(node.func), {}


def _branches(tree: ast.AST, calls, paths) -> Set[ast.AST]:
    """The lambdas and functions given to ``tf.cond`` as a branch."""
    named: Set[str] = set()
    branches: Set[ast.AST] = set()
    for node in calls:
        path = paths[id(node)]
        if not (path.startswith("tensorflow") and path.rsplit(".", 1)[-1] in CONDS):
            continue
        given = node.args[1:3] + [
            k.value for k in node.keywords if k.arg in ("true_fn", "false_fn")
        ]
        for arg in given:
            if isinstance(arg, ast.Lambda):
                branches.add(arg)
            elif last_name(arg):
                named.add(last_name(arg))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in named:
            branches.add(node)
    return branches


def _optimizers_made(tree: ast.AST, paths) -> Dict[str, str]:
    """``name -> optimizer class`` for ``opt = tf.train.XOptimizer(...)`` assignments."""
    made: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            path = paths.get(id(node.value), "")
            if path.startswith("tensorflow") and path.endswith("Optimizer"):
                for target in node.targets:
                    if last_name(target):
                        made[last_name(target)] = path.rsplit(".", 1)[-1]
    return made


def _own_variables(func: ast.Attribute, made: Dict[str, str]) -> bool:
    """Whether ``x.apply_gradients`` may make variables of its own: not for
    an optimizer known to be one without (``opt = tf.train.MomentumOptimizer``)."""
    return made.get(last_name(func.value) or "") not in NO_OWN_VARIABLES


def _maybe_own(node: ast.AST, made: Dict[str, str], paths) -> bool:
    if isinstance(node, ast.Call):
        return paths.get(id(node), "").rsplit(".", 1)[-1] not in NO_OWN_VARIABLES
    return made.get(last_name(node) or "") not in NO_OWN_VARIABLES
