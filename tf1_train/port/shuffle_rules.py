"""A seeded ``Dataset.shuffle(...)`` followed directly by ``repeat()``.

TF 1.x's tf.data rewrote that pair, by a default optimization, into one
``ShuffleAndRepeatDataset``, whose kernel shuffled the first epoch with the
op's seeds themselves and drew the later epochs on from the same random
stream. TF 2's kernels (the fused one included) derive each epoch's seeds from
a seed generator, the first epoch's too. So with the same seeds, and the same
graph, TF 2.21 serves another order from the first batch on: 1.15.5 gave
``[7, 9, 3, 6, 5, 1, 8, 4, 0, 2]`` for ``range(10).shuffle(100, seed=1)
.repeat(2)``, 2.21 ``[0, 9, 5, 1, 2, 7, 3, 8, 6, 4]`` (XLNet's
``run_classifier.py``: its only difference left under ``--v1_seeds``). TF
1.15.5 with the rewrite turned off gives 2.21's order. Not fused, and the
same on both: ``shuffle().map().repeat()``, ``repeat().shuffle()``,
``reshuffle_each_iteration=False`` (each epoch the first epoch's order), and
a shuffle never repeated. An unseeded shuffle is reported nowhere: its order
was never the same twice.
"""

import ast
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.port.rules import CHANGES, _rule

ROW = "a seeded `Dataset.shuffle(...)` followed by `repeat()`"
KEY = "dataset-shuffle-repeat"
_rule(
    KEY,
    CHANGES,
    "TF 1.x fused {construct} into one ShuffleAndRepeatDataset, which shuffled the first "
    "epoch with the seeds themselves and drew the later ones on from the same stream; TF 2's "
    "kernels derive each epoch's seeds anew, so with the same seeds every epoch, the first "
    "included, comes in another order than on TF 1.x (under python -m tf1_train.compat "
    "--v1_seeds too, which cannot bring that kernel back): compare a port from the same "
    "batches or one checkpoint; reshuffle_each_iteration=False serves TF 1.x's first epoch "
    "again, in every epoch",
    "leaves it unchanged and reports nothing",
    ROW,
)
FUSED = (
    "tensorflow.data.experimental.shuffle_and_repeat",
    "tensorflow.contrib.data.shuffle_and_repeat",
)
Finding = Tuple[ast.AST, str, str, Dict[str, str]]


def findings(tree: ast.AST, resolve, graph_seeded: bool) -> Iterator[Finding]:
    """Each seeded shuffle a ``repeat()`` follows directly: chained, on the
    next line of the same name, or as ``shuffle_and_repeat``."""
    for node in ast.walk(tree):
        shuffle = _shuffle_repeated(node, resolve)
        if shuffle is not None and _seeded(shuffle, graph_seeded):
            text = "shuffle(...).repeat()" if shuffle is not node else ast.unparse(node.func)
            yield node, KEY, text, {"construct": text}
        for first, second in _pairs(node):
            shuffle = _assigned_shuffle(first)
            if shuffle is not None and _repeats(second, first) and _seeded(shuffle, graph_seeded):
                yield (
                    second,
                    KEY,
                    "shuffle(...) then repeat()",
                    {"construct": "shuffle(...) then repeat()"},
                )


def _shuffle_repeated(node: ast.AST, resolve) -> Optional[ast.Call]:
    """The shuffle call of ``x.shuffle(...).repeat(...)``, or ``node`` itself
    when it is ``tf.data.experimental.shuffle_and_repeat(...)``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    if resolve(node.func) in FUSED:
        return node
    inner = node.func.value
    if node.func.attr == "repeat" and _is_shuffle(inner):
        return inner
    return None


def _is_shuffle(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "shuffle"
        and bool(node.args or node.keywords)
    )


def _pairs(node: ast.AST):
    body = getattr(node, "body", None)
    if isinstance(body, list):
        yield from zip(body, body[1:])


def _assigned_shuffle(statement: ast.AST) -> Optional[ast.Call]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        if isinstance(statement.targets[0], ast.Name) and _is_shuffle(statement.value):
            return statement.value
    return None


def _repeats(statement: ast.AST, shuffled: ast.Assign) -> bool:
    """``d = d.repeat(...)`` (or ``d.repeat()`` in any expression) of the
    name the statement before bound to the shuffle."""
    name = shuffled.targets[0].id
    value = getattr(statement, "value", None)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "repeat"
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == name
    )


def _seeded(call: ast.Call, graph_seeded: bool) -> bool:
    """A seed given (``shuffle(n, seed)``, ``shuffle_and_repeat(n, count,
    seed)``, ``seed=``) or a graph seed set; never with
    ``reshuffle_each_iteration=False``."""
    keywords = {k.arg: k.value for k in call.keywords}
    reshuffle = keywords.get("reshuffle_each_iteration")
    if isinstance(reshuffle, ast.Constant) and reshuffle.value is False:
        return False
    position = 2 if call.func.attr == "shuffle_and_repeat" else 1
    seed = keywords.get("seed", call.args[position] if len(call.args) > position else None)
    given = seed is not None and not (isinstance(seed, ast.Constant) and seed.value is None)
    return given or graph_seeded
