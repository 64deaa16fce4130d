"""Which `tf.X` names TensorFlow 2.21 has at all, read from its generated API files.

tf_upgrade_v2's tables (paths.tf_renames) only know TF 1.x names, so TF 0.x names
that TF 1.0 already renamed (`tf.train.SummaryWriter`, `tf.scalar_summary`,
`tf.mul`) and modules that never shipped in the pip package any more
(`tensorflow.examples.tutorials`) pass through both it and a name table
unnoticed, and raise AttributeError / ImportError on 2.21 even after
`import tensorflow.compat.v1 as tf`. The installed TensorFlow's `_api` folders
list every public name; they are parsed, not imported, so scanning stays fast
and does not load TensorFlow.
"""

import ast
import functools
import importlib.util
import pathlib
from typing import FrozenSet, Optional, Sequence

from tf1_train.port.rules import BREAKS, ROW_OLD_NAMES, V1, _rule

_rule(
    "unknown-name",
    BREAKS,
    "{old}: TensorFlow 2.21 has it neither as tf.X nor as tf.compat.v1.X, so it raises "
    "AttributeError (ImportError for a module) even after `import tensorflow.compat.v1 as tf`",
    "leaves it unchanged and reports nothing (its tables start at TF 1.x)",
    ROW_OLD_NAMES,
)

# TF 0.x names TF 1.0 renamed: where each went (all still exist under tf.compat.v1).
OLD_NAMES = {
    "train.SummaryWriter": "tf.compat.v1.summary.FileWriter",
    "scalar_summary": "tf.compat.v1.summary.scalar",
    "histogram_summary": "tf.compat.v1.summary.histogram",
    "image_summary": "tf.compat.v1.summary.image",
    "audio_summary": "tf.compat.v1.summary.audio",
    "merge_summary": "tf.compat.v1.summary.merge",
    "merge_all_summaries": "tf.compat.v1.summary.merge_all",
    "mul": "tf.multiply",
    "sub": "tf.subtract",
    "neg": "tf.negative",
    "pack": "tf.stack",
    "unpack": "tf.unstack",
    "select": "tf.where (TF 2's broadcasts; tf.compat.v1.where does not)",
    "batch_matmul": "tf.linalg.matmul",
}
# Modules TF 1.x's pip package had and TF 2 dropped without a tf.compat.v1 copy.
GONE_MODULES = {
    "examples": "tf.keras.datasets.mnist.load_data() for the tutorials' input_data.read_data_sets "
    "(tensorflow.examples left the pip package in TF 2.0), or run the program through "
    "python -m tf1_train.compat, which serves input_data and the tutorials' mnist model",
}
# Left to their own rules: Keras is loaded lazily, the rest are matched by name.
# tf.compat.v1.app.flags is set when TensorFlow loads, not in the generated files.
SKIP_PATHS = ("app.flags",)
SKIP = ("keras", "contrib", "estimator", "layers", "python", "compiler", "core", "tools")


@functools.cache
def _root() -> Optional[pathlib.Path]:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        return None
    return pathlib.Path(list(spec.submodule_search_locations)[0])


@functools.cache
def _names(init: pathlib.Path) -> FrozenSet[str]:
    """Names a generated `__init__.py` binds: imports, assignments, setattr(module, "x", ...)."""
    try:
        tree = ast.parse(init.read_text())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr":
            names |= {a.value for a in node.args[1:2] if isinstance(a, ast.Constant)}
    return frozenset(names)


def _has(top: pathlib.Path, init: pathlib.Path, parts: Sequence[str]) -> bool:
    """Whether the API folder `top` (its names in `init`) has the dotted name `parts`."""
    folder = top
    for i, part in enumerate(parts):
        names = _names(init if i == 0 else folder / "__init__.py")
        if part not in names:
            return False
        if not (folder / part / "__init__.py").is_file():
            return True  # a function, class or constant: its attributes are not checked
        folder = folder / part
    return True


def missing(path: str) -> Optional[str]:
    """The `tf.X` prefix of a `tensorflow.X...` path that TF 2.21 lacks both ways, or None.

    A `tensorflow.X` name counts as present when TF 2 or tf.compat.v1 has it
    (the rename rules report the v1-only ones); `tensorflow.compat.v1.X` must
    be in tf.compat.v1. None when TensorFlow is not installed.
    """
    root = _root()
    if root is None or not path.startswith("tensorflow.") or path.count(".") < 1:
        return None
    v1_top = root / "_api" / "v2" / "compat" / "v1"
    rest = path[len(V1 if path.startswith(V1) else "tensorflow.") :]
    if any(rest == s or rest.startswith(s + ".") for s in SKIP_PATHS):
        return None
    if path.startswith(V1):
        parts = rest.split(".")
        if parts[0] in SKIP or _has(v1_top, v1_top / "__init__.py", parts):
            return None
        return _first_missing("tf.compat.v1.", v1_top, v1_top / "__init__.py", parts)
    parts = rest.split(".")
    if parts[0] in SKIP or parts[0].startswith("_") or parts[0] == "compat":
        return None
    v2_top = root / "_api" / "v2"
    if _has(v2_top, root / "__init__.py", parts) or _has(v1_top, v1_top / "__init__.py", parts):
        return None
    public = _names(root / "__init__.py") | _names(v1_top / "__init__.py")
    if parts[0] not in public and (
        (root / parts[0]).exists() or (root / f"{parts[0]}.py").exists()
    ):
        return None  # a private subpackage (tensorflow.tsl, ...): its paths are not checked
    return _first_missing("tf.", v1_top, v1_top / "__init__.py", parts)


def _first_missing(prefix: str, top: pathlib.Path, init: pathlib.Path, parts: Sequence[str]):
    for end in range(1, len(parts) + 1):
        if not _has(top, init, parts[:end]):
            return prefix + ".".join(parts[:end])
    return prefix + ".".join(parts)


def old_name_fix(name: str) -> str:
    """Where a missing `tf.X` went, when it is a TF 0.x name TF 1.0 renamed."""
    short = name.split(".", 1)[1] if name.startswith("tf.") else name
    short = short[len("compat.v1.") :] if short.startswith("compat.v1.") else short
    new = OLD_NAMES.get(short)
    if short.split(".")[0] in GONE_MODULES:
        return GONE_MODULES[short.split(".")[0]]
    if new:
        return f"{new} ({name} is a TF 0.x name, renamed in TF 1.0)"
    return (
        "removed before TF 2.21, or a name TensorFlow never had (GraphSAGE's tf.nn.l2_norm, "
        "in code that never ran: TF 1.15.5 lacks it too); look it up in the TF 1.0 / 2.0 "
        "release notes"
    )
