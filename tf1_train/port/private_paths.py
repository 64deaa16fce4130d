"""TensorFlow's private modules as TF1 code imported them: ``from
tensorflow.python.framework import graph_util`` for
``convert_variables_to_constants`` (every freeze script: facenet's), and
``rnn_cell_impl._linear``, ``control_flow_ops.cond``, ``ops.Tensor``,
``gen_nn_ops._max_pool_grad``. Most such paths still work on TensorFlow
2.21; these are gone, and neither tf_upgrade_v2 nor the public API table
(api_names.py) looks at them. The installed TensorFlow's source files are
parsed, not imported (a private module may do anything when it loads): a
module counts as having a name when its top level binds it; a module that binds names in
ways a parser cannot follow (a module ``__getattr__``, ``import *`` from
outside TensorFlow or from a module with ``__all__``) is not judged.
"""

import ast
import functools
import pathlib
from typing import FrozenSet, Iterator, Optional, Tuple

from tf1_train.compat import _estimator, _frozen_graph, _removed_names
from tf1_train.port import api_names
from tf1_train.port.rules import BREAKS, _rule

PREFIX = "tensorflow.python."
# The private modules tf1_train.compat.install() puts back (tensorflow-estimator's imports).
SERVED = (_estimator.BRIDGE, _estimator.PRIVATE, *_estimator.TPU_MODULES)
# and the names it puts back in modules TensorFlow 2.21 keeps (control_flow_ops.cond, ops.Tensor)
SERVED_NAMES = frozenset(f"{module}.{name}" for module, name, _ in _removed_names.REMOVED_NAMES)
SERVED_NAMES |= {_frozen_graph.PRIVATE}
ROW_PRIVATE = "TensorFlow's private modules (`tensorflow.python.*`)"
_rule(
    "private-path",
    BREAKS,
    "{fix}: TensorFlow 2.21's private {module} has no {name}, so it raises {error} ({why})",
    "leaves it unchanged and reports nothing (it reads public names only)",
    ROW_PRIVATE,
)


def findings(path: str, compat: bool) -> Iterator[Tuple[str, dict]]:
    """("private-path", fill-ins) when ``path`` (``tensorflow.python.X...``)
    names a module or a module's name the installed TensorFlow lacks
    (``compat``: the program calls install(), which serves SERVED)."""
    root = api_names._root()
    if root is None or not path.startswith(PREFIX):
        return
    if compat and any(path == m or path.startswith(m + ".") for m in SERVED):
        return
    if compat and path in SERVED_NAMES:
        return
    parts = path.split(".")[1:]
    folder = root
    for i, part in enumerate(parts):
        if (folder / part / "__init__.py").is_file():
            folder = folder / part
            continue
        module = ".".join(["tensorflow", *parts[:i]])
        if (folder / f"{part}.py").is_file() or (folder / part).is_dir():
            if i + 1 < len(parts) and (folder / f"{part}.py").is_file():
                yield from _attribute(folder / f"{part}.py", f"{module}.{part}", parts[i + 1])
            return
        names = _top_names(folder / "__init__.py")
        if names is None or part in names:
            return  # a name of the package itself, or one a parser cannot see
        yield "private-path", _fills(module, part, "ImportError")
        return


def _attribute(file: pathlib.Path, module: str, name: str) -> Iterator[Tuple[str, dict]]:
    names = _top_names(file)
    if names is not None and name not in names:
        error = "AttributeError (ImportError from an import)"
        yield "private-path", _fills(module, name, error, names)


def _fills(module: str, name: str, error: str, names: Optional[FrozenSet[str]] = None) -> dict:
    fix, why = _home(module, name, names or frozenset())
    return {"module": module, "name": name, "error": error, "fix": fix, "why": why}


def _home(module: str, name: str, names: FrozenSet[str]) -> Tuple[str, str]:
    """(what to write instead, why) for a name a private module lost."""
    last = module.rsplit(".", 1)[-1]
    for public in (f"tf.compat.v1.{last}.{name}", f"tf.compat.v1.{name}"):
        first = public[len("tf.compat.v1.") :].split(".")[0]
        dotted = "tensorflow." + public[len("tf.") :]
        if first not in api_names.SKIP and not name.startswith("_"):
            if api_names.missing(dotted) is None:
                return public, "the public name is the one TensorFlow keeps"
    bare = name.lstrip("_")
    if bare != name and bare in names:
        return f"{module}.{bare}", "TensorFlow dropped the underscore from its generated ops"
    return (
        "your own copy of it, or its public successor from the TensorFlow 2 API",
        "it was removed or moved to another private module",
    )


def _star_names(module: str) -> Optional[FrozenSet[str]]:
    """What ``from module import *`` binds, for a module of TensorFlow's
    (its public top-level names: TensorFlow's generated op modules have no
    ``__all__``), or None."""
    root = api_names._root()
    if root is None or not module.startswith("tensorflow."):
        return None
    file = root.joinpath(*module.split(".")[1:]).with_suffix(".py")
    names = _top_names(file) if file.is_file() else None
    if names is None or "__all__" in names:
        return None
    return frozenset(n for n in names if not n.startswith("_"))


@functools.cache
def _top_names(file: pathlib.Path) -> Optional[FrozenSet[str]]:
    """The names a module's top level binds (also under if/try/with), or
    None when it cannot be told (``import *``, a module ``__getattr__``)."""
    try:
        body = ast.parse(file.read_text()).body
    except (OSError, SyntaxError, ValueError):
        return None
    names = set()
    while body:
        node, body = body[0], body[1:]
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            starred = _star_names(node.module or "")
            if starred is None:
                return None
            names |= starred
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            nested = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            nested += [n for h in getattr(node, "handlers", []) for n in h.body]
            body = nested + body
    return None if "__getattr__" in names else frozenset(names)  # `__getattr__ = ...` too
