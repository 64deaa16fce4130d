"""Runs the command-line entry points in children forked after TensorFlow's import.

The bad-input table (tests/test_bad_input.py) runs about 180 command lines
that stop at their first check. Half of them import TensorFlow first (a
data file, a checkpoint or a user module needs it): over 3 s of CPU each on
this machine, and almost all of the table's time. This server imports
TensorFlow and both entry points once, before any session, eager context
or thread pool exists, and forks a child per command line
(tests/fork_server.py); the child runs the entry point's own ``run`` on its
argv in its working directory, with stdout and stderr in files of their
own, and exits with the entry point's status. Nothing in tf1_train knows it
is being tested; what differs from ``python -m`` is only that TensorFlow is
already loaded, so a row whose meaning depends on the environment
TensorFlow loads with (``env``) still runs in a fresh interpreter
(tests/conftest.py ``run_cli``).

Request: {"module": m, "argv": [...], "cwd": d, "stdout": path, "stderr": path}.
"""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import fork_server  # noqa: E402


def _entry_points():
    """module name -> the function ``python -m module`` runs (imported once)."""
    import keras  # noqa: F401  (the TF2 route's, and user models')
    import tensorflow  # noqa: F401  (the entry points import it after reading their flags)
    from absl import app

    from tf1_train import loop, main, train  # noqa: F401
    from tf1_train.tf2 import keras_fit  # noqa: F401
    from tf1_train.tf2 import main as tf2_main
    from tf1_train.tf2 import train as tf2_train  # noqa: F401

    return {
        "tf1_train.main": main.run,
        "tf1_train.tf2.main": lambda: app.run(tf2_main.main, flags_parser=main.parse_flags),
    }


def serve() -> None:
    entry_points = _entry_points()

    def child(request) -> None:
        def run() -> None:
            fork_server.redirect(request["stdout"], request["stderr"])
            os.chdir(request["cwd"])
            sys.argv = [request["module"], *request["argv"]]
            entry_points[request["module"]]()

        fork_server.exit_with(run)

    fork_server.serve(child)


class WarmCli(fork_server.ForkClient):
    """Client of the server above; ``run`` may be called from several threads."""

    def __init__(self, reply_timeout: float = 120.0):
        super().__init__("warm_cli.py", None, reply_timeout)

    def run(self, args, out_dir, module="tf1_train.main", timeout=120.0, cwd=fork_server.ROOT):
        """``python -m module args`` as a forked child: a CompletedProcess
        (its output kept in ``out_dir`` while it runs)."""
        files = {k: os.path.join(out_dir, f"warm_cli.{k}") for k in ("stdout", "stderr")}
        request = {"module": module, "argv": list(args), "cwd": str(cwd), **files}
        pid = self.ask(request)["pid"]
        status = self.wait(pid, timeout, f"{module} {args}")
        text = {}
        for key, path in files.items():
            with open(path) as f:
                text[key] = f.read()
            os.unlink(path)
        return subprocess.CompletedProcess([module, *args], status, **text)


if __name__ == "__main__":
    serve()
