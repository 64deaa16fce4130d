"""Runs the command-line entry points in children forked after TensorFlow's import.

The tests run the entry points hundreds of times (tests/conftest.py
``run_cli``; the bad-input table alone has 183 rows). A fresh ``python -m``
spends over 3 s of CPU importing TensorFlow on this machine: most of a row
that stops at its first check, and much of a short training run. This server imports
TensorFlow and both entry points once, before any session, eager context
or thread pool exists, and forks a child per command line
(tests/fork_server.py); the child runs the entry point's own ``run`` on its
argv in its working directory, with stdout and stderr in files of their
own, and exits with the entry point's status. Nothing in tf1_train knows it
is being tested; what differs from ``python -m`` is only that TensorFlow is
already loaded.

Request: {"module": m, "argv": [...], "cwd": d, "env": {...}, "stdout": path,
"stderr": path}. The child runs with ``env`` as its environment; what
TensorFlow reads when it loads (tests/conftest.py ``LOAD_TIME``) it read in
the server, so the caller keeps a server per such environment (``shared``).
``WarmCli`` is also the client of tests/warm_compat.py, which takes the same
requests for ``python -m tf1_train.compat``.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Dict, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import fork_server  # noqa: E402

ENTRY_POINTS = ("tf1_train.main", "tf1_train.tf2.main", "tf1_train.port.sides",
                "tests.precision_worker")  # fmt: skip


def _entry_points():
    """module name -> the function ``python -m module`` runs (imported once)."""
    import keras  # noqa: F401  (the TF2 route's, and user models')
    import tensorflow  # noqa: F401  (the entry points import it after reading their flags)
    from absl import app

    from tests import precision_worker
    from tf1_train import loop, main, train  # noqa: F401
    from tf1_train.port import sides
    from tf1_train.tf2 import keras_fit  # noqa: F401
    from tf1_train.tf2 import main as tf2_main
    from tf1_train.tf2 import train as tf2_train  # noqa: F401

    return {
        "tf1_train.main": main.run,
        "tf1_train.tf2.main": lambda: app.run(tf2_main.main, flags_parser=main.parse_flags),
        # the port check's sides (tests/conftest.py warm_side)
        "tf1_train.port.sides": lambda: sys.exit(sides.main(sys.argv[1:])),
        # the precision tests' sides (tests/precision_worker.py)
        "tests.precision_worker": lambda: precision_worker.cli(sys.argv[1:]),
    }


def serve() -> None:
    entry_points = _entry_points()

    def child(request) -> None:
        def run() -> None:
            fork_server.redirect(request["stdout"], request["stderr"])
            os.chdir(request["cwd"])
            if sys.path[0] != os.getcwd():  # python -m puts its working directory first
                sys.path.insert(0, os.getcwd())
            os.environ.clear()  # the variables tf1_train reads as it runs (TF_CONFIG, ...)
            os.environ.update(request["env"])
            sys.argv = [request["module"], *request["argv"]]
            entry_points[request["module"]]()

        fork_server.exit_with(run)

    fork_server.serve(child)


class WarmCli(fork_server.ForkClient):
    """Client of the server above (or of ``script``, another server of
    tests/ taking the same requests), which runs with ``env``; may be used
    from several threads."""

    def __init__(self, env=None, reply_timeout: float = 120.0, script: str = "warm_cli.py"):
        self.env = dict(os.environ if env is None else env)
        self.out_dir = tempfile.mkdtemp(prefix="warm_cli.")
        self._names = itertools.count()
        super().__init__(script, self.env, reply_timeout)

    def start(
        self,
        args,
        module="tf1_train.main",
        cwd=fork_server.ROOT,
        env=None,
        stdout=None,
        stderr=None,
    ) -> Tuple[int, Dict]:
        """Forks ``python -m module args`` in ``cwd`` with ``env`` (default: the
        server's); (pid, its output files). ``stdout``, ``stderr``: the files
        it writes, for a test that reads them while it runs (stderr: into
        stdout's file unless given); by default files of its own."""
        n = next(self._names)
        files = {k: os.path.join(self.out_dir, f"{n}.{k}") for k in ("stdout", "stderr")}
        if stdout is not None:
            files = {"stdout": str(stdout), "stderr": str(stderr or stdout)}
            for path in set(files.values()):
                open(path, "w").close()  # there before the child opens it
        env = self.env if env is None else dict(env)
        request = {"module": module, "argv": list(args), "cwd": str(cwd), "env": env, **files}
        return self.ask(request)["pid"], files

    def finish(self, started, args, module, timeout: float) -> subprocess.CompletedProcess:
        """The CompletedProcess of a started child (``args``, ``module``: its command)."""
        pid, files = started
        status = self.wait(pid, timeout, f"{module} {args}")
        text = {}
        for key, path in files.items():
            with open(path) as f:
                text[key] = f.read()
            os.unlink(path)
        return subprocess.CompletedProcess([module, *args], status, **text)

    def run(self, args, module="tf1_train.main", timeout=120.0, cwd=fork_server.ROOT, env=None):
        """``python -m module args`` as a forked child: a CompletedProcess."""
        return self.finish(self.start(args, module, cwd, env), args, module, timeout)

    def close(self):
        super().close()
        shutil.rmtree(self.out_dir, ignore_errors=True)


# (script, key) -> its server; here, not in conftest: pytest imports
# conftest.py twice (conftest, tests.conftest)
_SHARED: Dict[tuple, WarmCli] = {}
_SHARED_LOCK = threading.Lock()


def shared(env, script: str = "warm_cli.py", key: tuple = ()) -> WarmCli:
    """The test session's server of ``script`` for ``key`` (the load-time
    environment its runs share, tests/conftest.py ``_warm_cli``), started on
    first use with ``env`` (by whichever thread of a fixture's pool asks
    first). A server per load-time environment, not one for the session: a
    run that sets TF_CPP_MIN_LOG_LEVEL=2 then forks from a server that
    loaded TensorFlow so, instead of starting a fresh interpreter (3 s of
    CPU) each time."""
    with _SHARED_LOCK:
        if (script, key) not in _SHARED:
            _SHARED[script, key] = WarmCli(env, script=script)
        return _SHARED[script, key]


def close_shared() -> None:
    with _SHARED_LOCK:
        while _SHARED:
            _SHARED.popitem()[1].close()


if __name__ == "__main__":
    serve()
