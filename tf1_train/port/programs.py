"""The programs a scan's files make: each file with the scanned files it imports
and those that import it.

Facts a rule weighs are facts of one program: whether eager execution is off,
whether it calls tf1_train.compat.install(), which attributes its model makes
variables of. A folder of independent scripts (a tutorial's chapters, a
cookbook's recipes) is many programs: taken as one, a script that turns eager
execution off made every other script's Keras layers "layers in a v1 graph"
(the TensorFlow cookbook's Keras recipe was told so 9 times). A code base whose
files import each other stays one program.
"""

import ast
import pathlib
from typing import Dict, Iterator, List, Sequence, Tuple


def _names(path: str) -> Iterator[str]:
    """The module names a file answers to: every dotted suffix of its path."""
    parts = pathlib.Path(path).with_suffix("").parts
    parts = parts[:-1] if parts and parts[-1] == "__init__" else parts
    for k in range(1, len(parts) + 1):
        yield ".".join(parts[-k:])


def _imported(tree: ast.AST) -> Iterator[str]:
    """The module names a file imports (a relative import by its last names)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            yield from (f"{module}.{a.name}".lstrip(".") for a in node.names)
            if module:
                yield module


def _found(candidates: List[int], files, importer: str) -> List[int]:
    """The files an import can mean: the one beside the importer if there is one (a
    script's own folder comes first on ``sys.path``), else every candidate."""
    folder = pathlib.Path(importer).parent
    beside = [j for j in candidates if pathlib.Path(files[j][0]).parent == folder]
    return beside or candidates


def groups(files: Sequence[Tuple[str, ast.AST]]) -> List[List[int]]:
    """Indices into ``files`` (path, tree), one list per program, in file order."""
    answers: Dict[str, List[int]] = {}
    for i, (path, _) in enumerate(files):
        if path.endswith(".py"):
            for name in _names(path):
                answers.setdefault(name, []).append(i)
    parent = list(range(len(files)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (path, tree) in enumerate(files):
        for name in _imported(tree):
            for j in _found(answers.get(name, []), files, path):
                parent[root(j)] = root(i)
    found: Dict[int, List[int]] = {}
    for i in range(len(files)):
        found.setdefault(root(i), []).append(i)
    return sorted(found.values())
