"""Runs ``python -m tf1_train.compat`` in children forked after TensorFlow's import.

The compat tests run legacy TF1 programs through the runner about 80 times
(tests/conftest.py ``run_cli(module="tf1_train.compat")``,
``run_legacy_script``), each a fresh interpreter spending 3 s of CPU
importing TensorFlow before the program's first line. This server imports
TensorFlow, Keras and tf1_train.compat (and the modules its ``install()``
imports) once, before any session, eager context or thread exists, and forks
a child per command line (tests/fork_server.py) that runs the module as
``python -m`` would in the request's working directory: its ``__main__``
through runpy, ``sys.argv`` and ``sys.path`` as ``python -m`` sets them
(the working directory first, then the request's PYTHONPATH), the request's
environment, and the interpreter's exit (threads joined, atexit handlers
run) before the status. Nothing in tf1_train knows it is being tested.

A server of its own, not tests/warm_cli.py's: a legacy program defines its
own absl flags (``tf.app.flags.DEFINE_integer("batch_size", ...)``), and
tf1_train.main, which that server imports, defines flags of the same names
(absl's DuplicateFlagError). The install() itself is left to each child, as
the runner does it: it changes TensorFlow's modules.

Requests and client: tests/warm_cli.py's (``WarmCli(env, script="warm_compat.py")``).
"""

from __future__ import annotations

import importlib
import os
import runpy
import sys
import threading


def _python_path_entries(cwd: str, environ) -> list:
    """PYTHONPATH's entries as site puts them on sys.path: absolute (an
    empty one: the directory python started in)."""
    value = environ.get("PYTHONPATH", "")
    return [os.path.abspath(os.path.join(cwd, p)) for p in value.split(os.pathsep)] if value else []


# The interpreter's own sys.path (the standard library, site-packages), without
# what python put first for the server (its own directory, then PYTHONPATH's):
# each child puts the request's there.
_SERVER_FIRST = {sys.path[0], *_python_path_entries(os.getcwd(), os.environ)}
_INTERPRETER_PATH = [p for p in sys.path[1:] if p not in _SERVER_FIRST]

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import fork_server  # noqa: E402

MODULES = ("tf1_train.compat",)
# What install() imports, loaded here without installing anything (each
# module only defines names): 0.06 s less per child.
INSTALL_IMPORTS = ("tensorflow.compat.v1", "tensorflow.python.layers.normalization",
                   "tf1_train.compat.layers", "tf1_train.compat.rnn_cell",
                   "tf1_train.compat._wrapper", "tf1_train.compat._global_step",
                   "tf1_train.compat._numpy_removed", "tf1_train.compat._contrib",
                   "tf1_train.compat._tutorial_mnist", "tf1_train.compat._estimator",
                   "tf1_train.compat._contrib_slim", "tf1_train.compat._scipy_removed",
                   "tf1_train.compat._v1_imports", "tf1_train.compat._gpus_as_cpus")  # fmt: skip


def _preload() -> None:
    import keras  # noqa: F401
    import tensorflow  # noqa: F401

    import tf1_train.compat  # noqa: F401  (not its __main__: runpy runs that per child)

    for name in INSTALL_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # install() does without it (the legacy cells)
            pass
    # A child has only the forking thread: a thread or an eager context (its
    # thread pools) made here would be half there in every child.
    from tensorflow.python.eager import context

    assert threading.active_count() == 1 and context.context_safe() is None, "made before fork"


def python_m_path(cwd: str, environ) -> list:
    """``sys.path`` as ``python -m`` sets it in ``cwd`` with ``environ``:
    the directory itself, then PYTHONPATH's entries (made absolute, the
    duplicates dropped, as site does), then the interpreter's own."""
    return [cwd, *dict.fromkeys([*_python_path_entries(cwd, environ), *_INTERPRETER_PATH])]


def serve() -> None:
    _preload()

    def child(request) -> None:
        def run() -> None:
            fork_server.redirect(request["stdout"], request["stderr"])
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            sys.path[:] = python_m_path(os.getcwd(), request["env"])
            importlib.invalidate_caches()  # directories the server listed may have changed
            sys.argv = [request["module"], *request["argv"]]  # runpy sets argv[0] to the file
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)

        fork_server.exit_with(run, python_exit=True)

    fork_server.serve(child)


if __name__ == "__main__":
    serve()
