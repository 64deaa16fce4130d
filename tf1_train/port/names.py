"""What a name in a legacy file means: import aliases resolved to full module paths.

`import tensorflow.compat.v1 as tf` makes `tf.layers.dense` mean
`tensorflow.compat.v1.layers.dense`, while `import tensorflow as tf` makes the
same text mean `tensorflow.layers.dense`, which TF 2.x does not have. The rules
match full paths, so the same rule catches every spelling of one construct.
"""

import ast
from typing import Dict, Iterator, Optional, Set, Tuple

# Roots worth tracking; anything else (numpy, os, ...) is left alone.
ROOTS = ("tensorflow", "tf_slim", "horovod", "keras", "tf_keras")


def _tracked(path: str, roots: Tuple[str, ...] = ROOTS) -> bool:
    return path.split(".")[0] in roots


def canonical(path: str) -> str:
    """`tensorflow.compat.v2.x` is `tensorflow.x`, and so is
    `tensorflow.compat.v1.contrib.x` (TF 1.x's `tf.compat.v1.contrib` was
    `tf.contrib`: a program half-ported to `import tensorflow.compat.v1 as tf`
    still says `tf.contrib.crf`); other paths are kept as written."""
    for prefix in ("tensorflow.compat.v2.", "tensorflow._api.v2."):
        if path.startswith(prefix):
            return "tensorflow." + path[len(prefix) :]
    v1_contrib = "tensorflow.compat.v1.contrib"
    if path == v1_contrib or path.startswith(v1_contrib + "."):
        return "tensorflow." + path[len("tensorflow.compat.v1.") :]
    return path


class Aliases:
    """Local name -> full dotted path, for one file (flow-insensitive: last binding wins).
    ``v1``: `import tensorflow` means the v1 API, as on TF 1.x (and under
    ``python -m tf1_train.compat --v1``)."""

    def __init__(self, tree: ast.AST, roots: Tuple[str, ...] = ROOTS, v1: bool = False):
        self.names: Dict[str, str] = {}
        top = "tensorflow.compat.v1" if v1 else "tensorflow"
        # In source order, so `tf = tf.compat.v1` sees the `import tensorflow as tf` above it;
        # without the imports of an except ImportError fallback whose try body imports on 2.21.
        unreached = _fallback_imports(tree)
        for node in _in_order(tree):
            if id(node) in unreached:
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _tracked(alias.name, roots):
                        local = alias.asname or alias.name.split(".")[0]
                        target = alias.name if alias.asname else local
                        self.names[local] = canonical(top if target == "tensorflow" else target)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if _tracked(node.module, roots):
                    module = top if node.module == "tensorflow" else node.module
                    for alias in node.names:
                        if alias.name != "*":
                            full = canonical(f"{module}.{alias.name}")
                            self.names[alias.asname or alias.name] = full
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], self.resolve(node.value)
                if isinstance(target, ast.Name) and value and _module_like(value):
                    self.names[target.id] = value

    def resolve(self, node: ast.AST) -> Optional[str]:
        """The full path of `a.b.c` when `a` is a tracked alias, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.names:
            return None
        return canonical(".".join([self.names[node.id], *reversed(parts)]))


def _fallback_imports(tree: ast.AST) -> set:
    """Ids of the imports in ``except`` handlers after a ``try`` body of
    imports that work on TensorFlow 2.21 (guards.import_fallback_body): the
    names keep what the body bound (StyleGAN's ``nccl_ops``)."""
    from tf1_train.port.guards import import_fallback_body

    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and import_fallback_body(node):
            for handler in node.handlers:
                out |= {
                    id(n) for n in ast.walk(handler) if isinstance(n, (ast.Import, ast.ImportFrom))
                }
    return out


def _module_like(path: str) -> bool:
    """`tf = tf.compat.v1` or `slim = tf.contrib.slim` define aliases; `f = tf.flags.X` does not."""
    return path.count(".") < 4 and path.islower()


def _in_order(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.iter_child_nodes(tree):
        yield node
        yield from _in_order(node)


def dotted_uses(tree: ast.AST, aliases: Aliases) -> Iterator[Tuple[ast.AST, str, str]]:
    """(node, full path, text as written) for every outermost `a.b.c` chain or bare alias use.

    `tf.layers.dense` yields once for the whole chain, not again for `tf.layers`.
    """
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if id(node) in inner or not isinstance(node, (ast.Attribute, ast.Name)):
            continue
        if not isinstance(node.ctx, ast.Load):
            continue
        full = aliases.resolve(node)
        if full:
            yield node, full, ast.unparse(node)


def imported_names(tree: ast.AST) -> Set[str]:
    """Every name an import binds in the file, of any module: what a chain
    such as ``np.average(x)`` or ``os.path.getsize(p)`` starts from."""
    return {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }  # fmt: skip


def chain_root(node: ast.AST) -> str:
    """The name an attribute chain starts from ('' for a call's result)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def last_name(node: ast.AST) -> Optional[str]:
    """The last name of ``x`` or ``a.b.x`` (None for anything else): how the
    rules match a variable or an op across files (``self.train_op``, ``model.train_op``)."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None
