"""What Pillow 10 removed that TF1-era programs use: ``Image.ANTIALIAS``,
``Image.LINEAR``, ``Image.CUBIC`` (the resize of data-preparation scripts;
FixMatch's CTAugment), ``PIL.PILLOW_VERSION``, and the text-measuring
methods (``draw.textsize``, ``font.getsize``, ...). TensorBoard requires
Pillow, so a TensorFlow 2.21 install has the newest. The tables are
tf1_train.compat._pillow_removed's: what install() puts back and what it
cannot. A name is reported where it raises: the import line for ``from
PIL.Image import ANTIALIAS``, the attribute for ``Image.ANTIALIAS``.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.compat._pillow_removed import IMAGE, METHODS, PACKAGE
from tf1_train.port.names import Aliases, chain_root, imported_names
from tf1_train.port.rules import BREAKS, _rule

ROW_PILLOW = "Pillow's removals"
UPGRADE = "leaves it unchanged and reports nothing (it does not read Pillow names)"
GONE = {  # removed path -> (the same value's path, the Pillow that removed it)
    **{f"PIL.Image.{old}": (f"PIL.Image.{new}", "10") for old, new in IMAGE.items()},
    **{f"PIL.{old}": (f"PIL.{new}", "9") for old, new in PACKAGE.items()},
}

_rule(
    "pillow-removed-alias",
    BREAKS,
    "{new}, the same value: Pillow {version} removed {old}, so it raises AttributeError or "
    "ImportError; tf1_train.compat.install() puts it back",
    UPGRADE,
    ROW_PILLOW,
)
_rule(
    "pillow-removed-method",
    BREAKS,
    "{fix}: Pillow 10 removed .{name}(), so it raises AttributeError; the box is measured "
    "otherwise than the old size, so check the layout it computes",
    UPGRADE,
    ROW_PILLOW,
)


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each read or import of a removed
    name, and each call of a removed method in a file that imports Pillow."""
    pil = Aliases(tree, roots=("PIL",))
    if not pil.names:
        return
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    imported = imported_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for path in (f"{node.module}.{a.name}" for a in node.names):
                if path in GONE:
                    yield node, "pillow-removed-alias", path, _fills(path)
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            path = pil.resolve(node)
            if path in GONE:
                yield node, "pillow-removed-alias", ast.unparse(node), _fills(path)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name in METHODS and chain_root(node.func.value) not in imported:
                fills = {"fix": METHODS[name], "name": name}
                yield node, "pillow-removed-method", ast.unparse(node.func) + "(...)", fills


def _fills(path: str) -> Dict[str, str]:
    new, version = GONE[path]
    return {"old": path, "new": new, "version": version}
