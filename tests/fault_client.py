"""The client of tests/fault_worker.py, for the fault-injection tests
(tests/test_faults.py): fork a training run from the worker, wait for it."""

from __future__ import annotations

import os

from tests.fork_server import ForkClient, is_zombie

__all__ = ["Forker", "is_zombie"]


class Forker(ForkClient):
    """Client of tests/fault_worker.py (one TensorFlow import for all runs).

    Every wait is bounded and says what it waited for: a reply from the
    worker, or the end of one forked run (which is then killed).
    """

    def __init__(self, reply_timeout: float = 120.0, run_timeout: float = 180.0):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="1")
        super().__init__("fault_worker.py", env, reply_timeout)
        self.run_timeout = run_timeout

    def start(self, argv, log, kill_at=None, **faults) -> int:
        """Forks a run; ``faults``: oom_at_step=n, fsize_limit=bytes."""
        return self.ask({"argv": argv, "log": str(log), "kill_at": kill_at, **faults})["pid"]

    def wait(self, pid) -> int:
        """The run's exit status (negative: killed by that signal)."""
        return super().wait(pid, self.run_timeout, f"run {pid}")

    def run(self, argv, log, **faults):
        """A whole run: (exit status, its output)."""
        status = self.wait(self.start(argv, log, **faults))
        return status, log.read_text()
