"""python -m tf1_train.compat SCRIPT.py [ARGS...]: run an unmodified legacy
``tf.layers`` program on Keras 3, as ``__main__`` with ``sys.argv`` set to
``[SCRIPT.py, ARGS...]``, after ``tf1_train.compat.install()``, in graph mode
as under TF1. ``python -m tf1_train.compat -m PACKAGE.MODULE [ARGS...]``
runs a module of a package the way ``python -m`` does (the current directory
first on ``sys.path``, relative imports working): code bases such as
TensorFlow's NMT (``python -m nmt.nmt``) were started so. With ``--v1``
first, ``import tensorflow as tf`` in the program's own files means the v1
API, as on TensorFlow 1.x (_v1_imports.py); with ``--gpus_as_cpus=N``, a
multi-GPU program's ``/gpu:i`` towers run on N virtual CPU devices
(_gpus_as_cpus.py).

Graph mode because a TF1 program that builds inside ``with
tf.Graph().as_default():`` and never disables eager execution (tf-slim's
``train_image_classifier.py``) ran every thread in graph mode on TF1; on TF 2
a thread outside that block is eager, and ``tf.train.Supervisor``'s step
counter thread (``slim.learning.train``) then fails reading the global step
("is out of scope and cannot be used here") and training stops at step 0."""

import importlib.util
import os
import runpy
import sys
from typing import Optional

from tf1_train.compat import install

USAGE = (
    "usage: python -m tf1_train.compat [--v1] [--gpus_as_cpus=N] SCRIPT.py [ARGS...] "
    "| -m MODULE [ARGS...]"
)


def _module_error(name: str) -> Optional[str]:
    """Why ``-m name`` cannot run, or None (python -m's own checks)."""
    if not name or name.startswith("-"):
        return f"-m needs a module name; {USAGE}"
    sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as e:  # a parent package that is missing or fails
        return f"-m {name}: {e}"
    if spec is None:
        return (f"-m {name}: no such module (run from the directory that holds its "
                "package, or put it on PYTHONPATH)")  # fmt: skip
    return None


def _options(argv: list):
    """``--v1`` and ``--gpus_as_cpus=N`` before the program, in either order:
    (v1, N or 0 or why the value is refused, the rest)."""
    v1, gpus = False, 0
    while argv and (argv[0] in ("--v1", "--gpus_as_cpus") or argv[0].startswith("--gpus_as_cpus=")):
        option, argv = argv[0], argv[1:]
        if option == "--v1":
            v1 = True
            continue
        from tf1_train.compat._gpus_as_cpus import parse

        value = option.partition("=")[2]
        gpus = parse(value) or int(value)
    return v1, gpus, argv


def main(argv: Optional[list] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    v1, gpus, argv = _options(argv)
    if isinstance(gpus, str):  # why the value cannot run
        print(f"error: {gpus}", file=sys.stderr)
        return 2
    if not argv:
        print(f"error: {'--v1' if v1 else '--gpus_as_cpus'} needs a program to run; {USAGE}",
              file=sys.stderr)  # fmt: skip
        return 2
    if gpus:
        from tf1_train.compat import _gpus_as_cpus

        print(_gpus_as_cpus.install(gpus), file=sys.stderr)
    if argv[0] == "-m":
        module = argv[1] if len(argv) > 1 else ""
        if v1 and module and not module.startswith("-"):
            _graph_mode(os.getcwd())  # before finding it imports its parent packages
        error = _module_error(module)
        if error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if not v1:
            _graph_mode(None)
        sys.argv = [module, *argv[2:]]  # runpy sets argv[0] to the module's file
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"error: {script}: no such file; {USAGE}", file=sys.stderr)
        return 2
    _graph_mode(os.path.dirname(os.path.abspath(script)) if v1 else None)
    sys.argv = [script, *argv[1:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


def _graph_mode(v1_root: Optional[str]) -> None:
    """install(), graph mode, and with ``--v1`` the v1 API for the files
    under ``v1_root``."""
    install()
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    if v1_root:
        from tf1_train.compat._v1_imports import serve_v1_api

        serve_v1_api([v1_root])


if __name__ == "__main__":
    sys.exit(main())
