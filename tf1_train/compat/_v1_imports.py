"""``python -m tf1_train.compat --v1``: in the user's own files, ``import
tensorflow as tf`` means what it meant on TensorFlow 1.x, the v1 API
(``tensorflow.compat.v1``), so a TF 1.x code base runs without its import
lines edited (``tf.placeholder``, ``tf.Session``, ``tf.layers``,
``tf.contrib`` after ``install()``).

Only the files under the program's directory are served so (the script's
directory, or the current one for ``-m``), not installed packages: TensorFlow
itself, tf-slim and tf1_train import the TF2 API as before. A TF 1.x library
the program installed (stable-baselines, cleverhans, tensorpack) is served
too when named: ``--v1_packages=stable_baselines``. ``import
tensorflow.compat.v1 as tf`` and ``from tensorflow.contrib import ...`` are
unchanged; ``import tensorflow`` and ``from tensorflow import X`` follow the
v1 API. What 1.x had beyond its API stays TensorFlow 2's: shapes of ints
(``shape[i].value`` raises, as the scanner says, unless ``--v1_shapes``
turns TF 1.x's shapes on for the whole process), resource variables, TF2
control flow.

One name is the program's own: ``tf.Tensor``. TF 1.x made graph tensors of
class ``tf.Tensor`` itself, and code checked ``type(t) is tf.Tensor``
(OpenAI baselines' ``tf_util.function`` asserts it of every placeholder, so
its DQN, DDPG, TRPO and GAIL stopped at that assertion); TensorFlow 2's
graph tensors are of a subclass, ``SymbolicTensor``. The program's files get
a view of the v1 API whose ``Tensor`` is that class while the program runs
in graph mode, and the base class once it turns eager execution on (an
eager tensor was a subclass in TF 1.x too).
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import sys
import types
from typing import Callable, List, Optional, Sequence, Tuple

_PACKAGES = ("site-packages", "dist-packages")
_import_module = importlib.import_module  # importlib's own, before serve_v1_api wraps it


def _owner(roots: Sequence[str], packages: Sequence[str] = ()) -> Callable[..., bool]:
    """Whether an importing module's globals are one of the user's files:
    under ``roots`` (not installed), or of the named installed ``packages``
    (their directories, or a one-file module's path). Globals without a
    ``__file__`` (``exec(compile(src, "/rl/lib.py", "exec"), {"__name__":
    "x"})``, a code base loading its own modules so) are judged by the
    importing code's file, ``filename`` (its ``co_filename``), when that is
    a path and not ``<string>``."""
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tf1_train/
    roots = tuple(os.path.join(os.path.abspath(r), "") for r in roots)
    packages = tuple(os.path.abspath(p) for p in packages)

    def owned(module_globals, filename: Optional[str] = None) -> bool:
        path = (module_globals or {}).get("__file__")
        if not isinstance(path, str):
            path = filename
        if not isinstance(path, str) or not path or path.startswith("<"):
            return False
        path = os.path.abspath(path)
        if any(path == p or path.startswith(os.path.join(p, "")) for p in packages):
            return True
        if path.startswith(os.path.join(ours, "")) or any(p in path for p in _PACKAGES):
            return False
        return path.startswith(roots)

    return owned


class _ProgramsV1(types.ModuleType):
    """``tensorflow.compat.v1`` as the program's files see it: every name is
    the v1 API's (read through, so install()'s names and the program's own
    assignments both show), but ``Tensor``, the class graph tensors have."""

    def __init__(self, v1):
        super().__init__(v1.__name__, v1.__doc__)
        self.__dict__["_v1"] = v1

    def __getattr__(self, name: str):
        v1 = self.__dict__["_v1"]
        if name == "Tensor" and not v1.executing_eagerly():
            from tensorflow.python.framework.ops import SymbolicTensor

            return SymbolicTensor
        return getattr(v1, name)

    def __dir__(self):
        return dir(self.__dict__["_v1"])


def package_paths(names: Sequence[str]) -> Tuple[List[str], str]:
    """``(paths, "")``: where the installed packages ``names`` live (a
    package's directories, a module's file), found without importing them;
    or ``([], why)`` for the first name Python cannot find."""
    paths: List[str] = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name) if name.isidentifier() else None
        except (ImportError, ValueError):
            spec = None
        if spec is None or not (spec.submodule_search_locations or spec.origin):
            return [], (
                f"--v1_packages: no package {name!r} on this Python's path (give the "
                "top-level names the program imports, comma-separated: "
                "--v1_packages=stable_baselines,cleverhans)"
            )
        paths += list(spec.submodule_search_locations or [spec.origin])
    return paths, ""


def serve_v1_api(roots: Sequence[str], packages: Sequence[str] = ()) -> None:
    """From now on, ``import tensorflow`` in a file under ``roots``, or in
    one of the installed ``packages`` (their paths), binds the v1 API (for
    the rest of the process, as the program runs in it)."""
    import tensorflow.compat.v1

    v1 = _ProgramsV1(tensorflow.compat.v1)
    original = builtins.__import__
    owned = _owner(roots, packages)

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        try:
            caller = sys._getframe(1).f_code.co_filename
        except ValueError:  # no Python frame: C code imports (the traceback printer's `io`)
            return original(name, globals, locals, fromlist, level)
        ours = level == 0 and owned(globals, caller)
        served = _v1_module(name, bool(fromlist), v1) if ours else None
        return served or original(name, globals, locals, fromlist, level)

    def import_module(name, package=None):
        caller = sys._getframe(1)
        ours = owned(caller.f_globals, caller.f_code.co_filename)
        served = _v1_module(name, True, v1) if ours else None
        return served or _import_module(name, package)

    _served.append(owned)

    builtins.__import__ = __import__
    importlib.import_module = import_module


_served: List[Callable[..., bool]] = []  # serve_v1_api()'s tests, for the note (_v1_notes.py)


def serves(path: str) -> bool:
    """Whether code of the file at ``path`` gets the v1 API when it imports."""
    return any(owned({"__file__": path}) for owned in _served)


def _v1_module(name: str, submodule: bool, v1) -> Optional[types.ModuleType]:
    """What ``import name`` gives a file of the program under the v1 API:
    ``tensorflow`` itself, or for ``tensorflow.train`` (``from tensorflow.train
    import AdamOptimizer``, ``importlib.import_module('tensorflow.train')``)
    the v1 API's module if ``submodule``, else the v1 API, whose attribute
    ``import tensorflow.train as t`` reads. None (TensorFlow's own import) for
    a name the v1 API has no module for (``tensorflow.python...``), and for
    ``compat``, ``contrib``, ``keras`` and ``estimator``, which install() and
    Keras serve as before."""
    if name == "tensorflow":
        return v1
    head = name.split(".")[1] if name.startswith("tensorflow.") else ""
    if head in ("", *_OWN_IMPORTS) or not isinstance(getattr(v1, head, None), types.ModuleType):
        return None
    try:
        module = _import_module("tensorflow.compat.v1." + name[len("tensorflow.") :])
    except (ImportError, AttributeError):
        return None
    return module if submodule else v1


_OWN_IMPORTS = ("compat", "contrib", "keras", "estimator")
