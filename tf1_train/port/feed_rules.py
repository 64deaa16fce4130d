"""A variable fed through ``feed_dict``: TF 1.x's reference variables took
the fed value, TF 2's resource variables ignore it (PORTING P22).

TF1 programs fed variables to set them for one run: a learning rate made as
``self.learning_rate = tf.Variable(0.0, trainable=False)`` and given each
step as ``feed_dict={..., self.learning_rate: lr}``, a point evaluated by
``sess.run(loss, {w: value})`` (``tf.contrib.opt.ScipyOptimizerInterface``
did that). On TensorFlow 2 a variable is a handle read anew at each use, so
the feed reaches no read: nothing raises, and the run computes with the
stored value (an optimizer given that learning rate trains at 0.0).

Found: a key of a ``feed_dict`` that is a variable. The feeds are the dict
given as ``feed_dict=`` or as ``run``'s second argument, or bound to a name
used so in the same function (also ``feed[key] = value`` on that name); the
variables are names the function binds only to a variable (as
variable_rules.py finds them) and attributes (``model.learning_rate``) every
assignment of which, in any file scanned, makes one (the model's file makes
them, the trainer's feeds them). ``tf.Variable`` of TF 2 stays a
resource variable under ``--v1_variables`` alone (``feed-variable-v2``).
"""

import ast
from typing import Callable, Dict, Iterator, List, Sequence, Set, Tuple

from tf1_train.port.rules import CHANGES, _rule
from tf1_train.port.variable_rules import _FUNCTIONS, _helpers, _maker, _own, _variables

ROW = "a variable in `feed_dict`"
FIX = (
    "set the variable instead of feeding it: {name}.load(value, sess), or an assign op fed "
    "through a placeholder (the PTB tutorial's lr_update), or make it a placeholder "
    "(tf.compat.v1.placeholder_with_default); TF 2's resource variables ignore a feed to the "
    "variable without an error and the run uses its stored value (P22); "
)
SAYS = "leaves it unchanged and reports nothing"
V1_FIX = "unedited: python -m tf1_train.compat --v1_variables (TF 1.x's reference variables)"
V2_FIX = (
    "unedited: python -m tf1_train.compat --v1 --v1_variables (tf.Variable is then TF 1.x's; "
    "TF 2's tf.Variable is a resource variable under any switch)"
)
_rule("feed-variable", CHANGES, FIX + V1_FIX, SAYS, ROW)
_rule("feed-variable-v2", CHANGES, FIX + V2_FIX, SAYS, ROW)
KEYS = {"variable-iadd": "feed-variable", "variable-iadd-v2": "feed-variable-v2"}


def findings(
    tree: ast.AST, resolve, attributes: Dict[str, str]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each variable among the keys of a feed; ``attributes``: the program's
    (variable_attributes), since a model's file makes them and a trainer's feeds them."""
    helpers = _helpers(tree, resolve)
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]:
        nodes = _own(scope)
        made = _variables(nodes, resolve, helpers)
        for key in _feed_keys(nodes):
            if isinstance(key, ast.Name) and key.id in made:
                rule = made[key.id]
            elif isinstance(key, ast.Attribute) and key.attr in attributes:
                rule = attributes[key.attr]
            else:
                continue
            yield key, KEYS[rule], ast.unparse(key), {"name": ast.unparse(key)}


def variable_attributes(files: Sequence[Tuple[ast.AST, Callable]]) -> Tuple[Tuple[str, str], ...]:
    """Attribute names (``self.learning_rate``) every assignment of which, in
    every file of ``(tree, resolve)``, makes a variable, with its rule's key."""
    kinds: Dict[str, Set[str]] = {}
    for tree, resolve in files:
        helpers = _helpers(tree, resolve)
        for attribute, maker in _assigned_attributes(tree, resolve, helpers):
            kinds.setdefault(attribute, set()).add(maker)
    return tuple(sorted((a, k.pop()) for a, k in kinds.items() if len(k) == 1 and "" not in k))


def _assigned_attributes(tree: ast.AST, resolve, helpers) -> Iterator[Tuple[str, str]]:
    """(attribute, the variable rule of what is assigned to it, '' for anything else)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute):
                    one = len(targets) == 1
                    yield target.attr, _maker(node.value, resolve, helpers) if one else ""
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
            yield node.target.attr, ""


def _feed_keys(nodes: List[ast.AST]) -> Iterator[ast.AST]:
    """The keys of the dicts fed in these nodes (one function's own)."""
    feeds, named = [], set()
    for node in nodes:
        if isinstance(node, ast.Call):
            for value in _fed(node):
                if isinstance(value, ast.Name):
                    named.add(value.id)
                else:
                    feeds.append(value)
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in named:
                feeds.append(node.value)
            elif _subscript_of(target, named):
                yield target.slice
    for feed in feeds:
        if isinstance(feed, ast.Dict):
            yield from (k for k in feed.keys if k is not None)


def _fed(call: ast.Call) -> Iterator[ast.AST]:
    """What a call feeds: its ``feed_dict=``, or ``x.run(fetches, feed)``'s second argument."""
    for keyword in call.keywords:
        if keyword.arg == "feed_dict":
            yield keyword.value
    if isinstance(call.func, ast.Attribute) and call.func.attr == "run" and len(call.args) > 1:
        yield call.args[1]


def _subscript_of(target: ast.AST, names: Set[str]) -> bool:
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id in names
    )
