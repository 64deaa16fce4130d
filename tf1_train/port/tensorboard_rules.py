"""TensorBoard 1.x's summary functions read from ``tensorboard.summary``,
which TensorBoard 2 made its TF 2 API: ``summary_lib.custom_scalar_pb``
(NVIDIA's StyleGAN writes its custom-scalars layout so), ``pr_curve``,
``scalar_pb``, ... moved unchanged to ``tensorboard.summary.v1``, and the old
spelling raises ``AttributeError`` (``ImportError`` for ``from
tensorboard.summary import custom_scalar_pb``). install() puts them back
(tf1_train/compat/_tensorboard_v1.py). tests/test_compat_memory_stats.py runs
the cases.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.compat._tensorboard_v1 import MOVED
from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, _rule

ROW = "TensorBoard 1.x's summary functions"
KEY = "tensorboard-summary-v1"
_rule(
    KEY,
    BREAKS,
    "tensorboard.summary.v1.{name} (the same function; `from tensorboard.summary import v1 as "
    "summary_lib`): TensorBoard 2 moved it there; unmodified: tf1_train.compat.install() "
    "puts it back",
    "leaves it unchanged and reports nothing (it does not read TensorBoard's names)",
    ROW,
)
PREFIX = "tensorboard.summary."


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each read or ``from``-import of a moved name under ``tensorboard.summary``."""
    tensorboard = Aliases(tree, roots=("tensorboard",))
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tensorboard.summary":
            paths = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            paths = [tensorboard.resolve(node) or ""]
        else:
            continue
        for path in paths:
            name = path[len(PREFIX) :].split(".")[0] if path.startswith(PREFIX) else ""
            if name in MOVED:
                construct = ast.unparse(node) if isinstance(node, ast.Attribute) else path
                yield node, KEY, construct, {"name": name}
