"""The client of tests/fault_worker.py, for the fault-injection tests
(tests/test_faults.py): fork a training run from the worker, wait for it."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

from tests.conftest import ROOT


class Forker:
    """Client of tests/fault_worker.py (one TensorFlow import for all runs).

    Every wait is bounded and says what it waited for: a reply from the
    worker, or the end of one forked run (which is then killed).
    """

    def __init__(self, reply_timeout: float = 120.0, run_timeout: float = 180.0):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="1")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tests", "fault_worker.py")],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.reply_timeout, self.run_timeout = reply_timeout, run_timeout

    def _ask(self, request) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.reply_timeout)
        assert ready, f"fault_worker.py did not answer {request} in {self.reply_timeout} s"
        line = self.proc.stdout.readline()
        assert line, "fault_worker.py exited"
        return json.loads(line)

    def start(self, argv, log, kill_at=None, **faults) -> int:
        """Forks a run; ``faults``: oom_at_step=n, fsize_limit=bytes."""
        return self._ask({"argv": argv, "log": str(log), "kill_at": kill_at, **faults})["pid"]

    def wait(self, pid) -> int:
        """The run's exit status (negative: killed by that signal)."""
        deadline = time.monotonic() + self.run_timeout
        while not is_zombie(pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        hung = not is_zombie(pid)
        if hung:
            os.kill(pid, signal.SIGKILL)
        status = self._ask({"wait": pid})["status"]
        assert not hung, f"run {pid} did not end within {self.run_timeout} s; killed it"
        return status

    def run(self, argv, log, **faults):
        """A whole run: (exit status, its output)."""
        status = self.wait(self.start(argv, log, **faults))
        return status, log.read_text()

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def is_zombie(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
