"""TF 1.x's dataset API that TF 2's ``tf.data`` dropped: ``tf.data.Iterator.
from_structure(ds.output_types, ds.output_shapes)`` (Kyubyong's transformer,
train.py), a dataset's ``output_types``/``output_shapes``/``output_classes``
and its ``make_one_shot_iterator()``/``make_initializable_iterator()``
methods. On TF 2.21 ``tf.data.Iterator`` is the TF 2 ``IteratorBase`` and
``tf.data.Dataset`` builds ``DatasetV2``: each raises AttributeError (``type
object 'IteratorBase' has no attribute 'from_structure'``), also under
``python -m tf1_train.compat``; under its ``--v1`` ``tf.data`` is TF 1.x's
and they run as on TF 1.15.5. tf.compat.v1.data has each as a function that
takes a TF 2 dataset too.

A dataset's attributes cannot be told by its path: they are matched by name
on anything in a file that uses TF 2's ``tf.data`` (a resolved
``tensorflow.data.`` path), and ``tf.compat.v1.data``'s own are left alone.
"""

import ast
from typing import Dict, Iterator, Sequence, Tuple

from tf1_train.port.rules import RENAME, _rule

ROW = "TF 1.x's dataset iterators and `output_types`"
KEY = "dataset-v1-api"
_rule(
    KEY,
    RENAME,
    "{fix}: TF 2's tf.data has no {name}, so it raises AttributeError (under python -m "
    "tf1_train.compat too); unedited: python -m tf1_train.compat --v1 (tf.data is TF 1.x's)",
    "renames tf.data.Iterator to tf.compat.v1.data.Iterator; leaves a dataset's attributes "
    "and methods unchanged",
    ROW,
)
ITERATOR = "tensorflow.data.Iterator."
CLASS_METHODS = ("from_structure", "from_string_handle")
ATTRIBUTES = {
    "output_types": "tf.compat.v1.data.get_output_types({obj})",
    "output_shapes": "tf.compat.v1.data.get_output_shapes({obj})",
    "output_classes": "tf.compat.v1.data.get_output_classes({obj})",
}
METHODS = {
    "make_one_shot_iterator": "tf.compat.v1.data.make_one_shot_iterator({obj})",
    "make_initializable_iterator": "tf.compat.v1.data.make_initializable_iterator({obj})",
}


def findings(
    tree: ast.AST, uses: Sequence[Tuple[ast.AST, str, str]]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each ``tf.data.Iterator.from_structure`` (by path) and each dataset
    attribute or method TF 2 dropped (by name, in a file using TF 2's tf.data)."""
    if not any(path.startswith("tensorflow.data.") for _, path, _ in uses):
        return
    for node, path, text in uses:
        name = path[len(ITERATOR) :]
        if path.startswith(ITERATOR) and name in CLASS_METHODS:
            fix = "tf.compat.v1.data.Iterator." + name
            yield node, KEY, text, {"fix": fix, "name": "Iterator." + name}
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and not n.args}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        fixes = {**ATTRIBUTES, **(METHODS if id(node) in calls else {})}
        if node.attr in fixes and isinstance(node.ctx, ast.Load):
            fix = fixes[node.attr].format(obj=ast.unparse(node.value))
            yield node, KEY, ast.unparse(node), {"fix": fix, "name": "Dataset." + node.attr}
