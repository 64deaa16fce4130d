"""An embedding looked up inside a loop, whose gradient TF 2 makes dense.

TF 1.x's loops (control flow v1) gave the gradient of a lookup made inside a
``tf.while_loop`` as ``IndexedSlices``: one row per id looked up, repeated ids
not summed. TF 2's loops (an op with a function per body) give it as a dense
tensor. The program runs either way, and computes other numbers where it
matters: ``tf.global_norm`` (so ``clip_by_global_norm``) counted a repeated
id's parts apart, and Momentum, RMSProp, Adadelta, FTRL, AdagradDA and the
proximal optimizers updated only the rows looked up, where a dense gradient
moves every row with momentum or decay. GradientDescent, Adam and Adagrad
give the same numbers either way (measured against TensorFlow 1.15.5 itself,
tests/legacy_scripts/loop_lookup_style.py).

Found per file, flow-insensitively: ``embedding_lookup`` in a function (or
lambda) given as a loop's body (``while_loop``'s ``body``, ``raw_rnn``'s
``loop_fn``, ``scan``/``map_fn``/``foldl``/``foldr``'s ``fn``) or in the
``call``/``__call__`` of an RNN cell class; ``ScheduledEmbeddingTrainingHelper``;
``EmbeddingWrapper`` in a file that runs a dynamic RNN or decoder. A lookup
of ids the body draws itself (``multinomial``, ``categorical``, ``argmax``)
is a sampling loop: its numbers change only if a loss is differentiated
through the loop's outputs, which SeqGAN's generators, for one, never are
(their losses read the sampled ids, and train to TF 1.15.5's numbers either
way), so it is listed as ``works`` with that condition.
tests/port_scan_cases_runtime.py has the cases; program.adjust says when the
numbers stay TF 1.x's.
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.rules import CHANGES, _rule

ROW = (
    "an embedding looked up inside a loop (`tf.nn.embedding_lookup` in a `tf.while_loop` "
    "body or an RNN cell, `EmbeddingWrapper` under `dynamic_rnn`, "
    "`ScheduledEmbeddingTrainingHelper`)"
)
KEY = "loop-lookup-gradient"
_rule(
    KEY,
    CHANGES,
    "TF 2's loops give this lookup's gradient dense, TF 1.x's gave IndexedSlices: "
    "tf.global_norm and clip_by_global_norm count repeated ids otherwise, and Momentum, "
    "RMSProp, Adadelta, FTRL, AdagradDA and the proximal optimizers now update every row, "
    "not only those looked up (GradientDescent, Adam and Adagrad are unchanged); unmodified: "
    "python -m tf1_train.compat --v1_control_flow (TF 1.x's loops) keeps TF 1.x's numbers; "
    "ported: look the whole sequence up before the loop where the ids are known",
    "leaves it unchanged and reports nothing",
    ROW,
)
# Where a function runs once per iteration: (the call's last name, the
# argument's position, its keyword).
LOOPS = {
    "while_loop": (1, "body"),
    "raw_rnn": (1, "loop_fn"),
    "scan": (0, "fn"),
    "map_fn": (0, "fn"),
    "foldl": (0, "fn"),
    "foldr": (0, "fn"),
}
DYNAMIC = ("dynamic_rnn", "bidirectional_dynamic_rnn", "raw_rnn", "dynamic_decode")
CELL_METHODS = ("call", "__call__")
SAMPLERS = ("multinomial", "categorical", "argmax")
SAMPLED = (
    "a sampling loop (the ids are drawn in its body): the numbers change only if a loss is "
    "differentiated through the loop's outputs (the sampled tokens' probabilities); a loss "
    "that reads the sampled ids alone (SeqGAN's) keeps TF 1.x's numbers"
)


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    paths = {id(n): resolve(n.func) or "" for n in calls}
    dynamic = any(_last(paths[id(n)]) in DYNAMIC for n in calls)
    bodies = _loop_bodies(tree, calls, paths)
    for node in calls:
        path, last = paths[id(node)], _last(paths[id(node)])
        if not path.startswith("tensorflow"):
            continue
        if last == "ScheduledEmbeddingTrainingHelper" or (last == "EmbeddingWrapper" and dynamic):
            yield node, KEY, ast.unparse(node.func), {}
    for body in bodies:
        sampled = _sampled_names(body, paths)
        for node in ast.walk(body):
            if isinstance(node, ast.Call) and _is_lookup(paths.get(id(node), "")):
                ids = node.args[1:2] + [k.value for k in node.keywords if k.arg == "ids"]
                drawn = any(_draws(i, paths) or _names(i) & sampled for i in ids)
                yield node, KEY, ast.unparse(node), {"works": SAMPLED} if drawn else {}


def _draws(node: ast.AST, paths) -> bool:
    """Whether an expression calls a sampler (tf.multinomial, tf.argmax, ...)."""
    return any(
        isinstance(n, ast.Call) and _last(paths.get(id(n), "")) in SAMPLERS for n in ast.walk(node)
    )


def _names(node: ast.AST) -> Set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _sampled_names(body: ast.AST, paths) -> Set[str]:
    """Names the body binds to sampled ids, directly or through other such names."""
    assigns = [n for n in ast.walk(body) if isinstance(n, ast.Assign)]
    sampled: Set[str] = set()
    for _ in range(3):  # next_token = tf.cast(tf.multinomial(...)); ids = next_token ...
        for node in assigns:
            if _draws(node.value, paths) or _names(node.value) & sampled:
                sampled.update(
                    n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)
                )
    return sampled


def _loop_bodies(tree: ast.AST, calls, paths) -> Set[ast.AST]:
    """The functions and lambdas a loop runs, and RNN cells' call methods."""
    named: Set[str] = set()
    bodies: Set[ast.AST] = set()
    for node in calls:
        path = paths[id(node)]
        where = LOOPS.get(_last(path)) if path.startswith("tensorflow") else None
        if where is None:
            continue
        given = [k.value for k in node.keywords if k.arg == where[1]]
        given += node.args[where[0] : where[0] + 1]
        for arg in given:
            if isinstance(arg, ast.Lambda):
                bodies.add(arg)
            elif isinstance(arg, (ast.Name, ast.Attribute)):
                named.add(arg.id if isinstance(arg, ast.Name) else arg.attr)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in named:
            bodies.add(node)
        elif isinstance(node, ast.ClassDef) and any(_cell_base(b) for b in node.bases):
            bodies.update(
                f for f in node.body if isinstance(f, ast.FunctionDef) and f.name in CELL_METHODS
            )
    return bodies


def _cell_base(base: ast.AST) -> bool:
    name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
    return name.endswith("RNNCell")


def _is_lookup(path: str) -> bool:
    return path.startswith("tensorflow") and _last(path) == "embedding_lookup"


def _last(path: str) -> str:
    return path.rsplit(".", 1)[-1]
