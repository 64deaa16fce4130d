"""The runner's note on a TF 1.x name a program read from ``tensorflow`` (or
from one of its submodules: ``tf.train.SessionRunHook``) where the v1 API
was not served: which option serves it there (``--v1``, ``--v1_root=DIR``,
``--v1_packages=NAME``).

The note follows the traceback when the program stops at that
``AttributeError``. A test program (``tf.test.main()``, ``unittest.main()``)
catches it, prints it as a failed test and exits non-zero, so the runner also
records each such read (``record``, a module ``__getattr__`` on ``tensorflow``
that raises the same error) and gives the note for the first one when the
program exits non-zero (dennybritz/reinforcement-learning's A3C tests).
"""

import functools
import os
import re
import sys
from typing import List, NamedTuple, Optional, Tuple

from tf1_train.compat._v1_imports import _PACKAGES, serves  # installed packages' folders

# TF 2's ``tensorflow`` and its API's submodules (``tensorflow._api.v2.train``), not the v1 API's
_MISSING = re.compile(
    r"module 'tensorflow(?:\._api\.v2\.(?!compat\b)([\w.]+))?' has no attribute '(\w+)'"
)


class Miss(NamedTuple):
    name: str  # the TF 1.x name read (placeholder)
    file: str  # the file that read it
    module: str  # that file's module name (__name__), '' if unknown


_recorded: List[Miss] = []


def of_error(error: AttributeError) -> Optional[Miss]:
    """The miss an AttributeError raised by a read of ``tensorflow`` is, if it is one."""
    found = _MISSING.fullmatch(str(error))
    if not found:
        return None
    name = ".".join(part for part in found.groups() if part)  # train.SessionRunHook
    frame, tb = None, error.__traceback__
    while tb:  # the last frame that is not record()'s __getattr__
        if tb.tb_frame.f_code.co_filename != __file__:
            frame = tb.tb_frame
        tb = tb.tb_next
    if frame is None:
        return None
    return Miss(name, frame.f_code.co_filename, frame.f_globals.get("__name__") or "")


def record() -> None:
    """From now on, remember each TF 1.x name a file reads from TF 2's ``tensorflow``."""
    import tensorflow

    def __getattr__(name: str):
        if not name.startswith("__") and hasattr(tensorflow.compat.v1, name):
            frame = sys._getframe(1)
            caller = frame.f_code.co_filename
            if not any(p in caller for p in _PACKAGES):
                _recorded.append(Miss(name, caller, frame.f_globals.get("__name__") or ""))
        raise AttributeError(f"module 'tensorflow' has no attribute '{name}'")

    tensorflow.__getattr__ = __getattr__


def first_recorded() -> Optional[Miss]:
    return _recorded[0] if _recorded else None


def advice(miss: Miss, v1: bool) -> str:
    """The note's text, '' for a name TF 1.x did not have either."""
    import tensorflow as tf

    if _lookup(tf.compat.v1, miss.name) is None:
        return ""
    where = os.path.normpath(miss.file)
    name = f"tf.{miss.name} in {where} is TF 1.x's"
    if not v1:
        return f"{name}: run with --v1 (python -m tf1_train.compat --v1 ...)"
    if serves(os.path.abspath(where)):  # its code ran in another file's globals
        return (
            f"{name}, and that file is among those --v1 serves, but its code ran in globals "
            "whose __file__ names another file (exec(code, globals)), and --v1 goes by that "
            "__file__: give those globals the file's own"
        )
    folder, package = _import_root(where, miss.module)
    fix = f"add --v1_packages={package}" if _installed(package, folder) else ""
    fix = fix or f"add --v1_root={folder}"
    return (
        f"{name}, and that file is outside what --v1 serves (the files under the script's "
        f"directory, or the current one for -m): {fix}"
    )


def _lookup(module, dotted: str):
    """``module.train.SessionRunHook`` for ``train.SessionRunHook``, or None."""
    return functools.reduce(lambda m, n: getattr(m, n, None), dotted.split("."), module)


def _import_root(where: str, module: str) -> Tuple[str, Optional[str]]:
    """(the folder on sys.path the file was imported from, its top package or
    None): ``lib.atari.state_processor`` at ``/rl/lib/atari/...`` was imported
    from ``/rl``, which a script put on sys.path (``..``)."""
    parts = module.split(".") if module not in ("", "__main__") else []
    path = os.path.abspath(where)
    path = os.path.dirname(path) if path.endswith("__init__.py") else os.path.splitext(path)[0]
    tail = os.path.join(*parts) if parts else ""
    if not parts or not path.endswith(os.sep + tail):
        return os.path.dirname(os.path.abspath(where)), None
    return path[: -len(tail) - 1], parts[0]


def _installed(package: Optional[str], root: str) -> bool:
    """Whether ``package`` is an installed one (--v1_packages can name it)."""
    return bool(package) and any(p in root for p in _PACKAGES)
