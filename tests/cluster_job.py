"""A ps/worker job of real processes on 127.0.0.1, for the distributed tests.

Each task's stdout and stderr go to files, so a test can wait for a line
while the task runs, kill one task and restart it. Ports are picked when the
job is made. Leaving the ``with`` block kills whatever is still running.

Tasks are forked from the session's warm server (tests/warm_cli.py) as
``run_cli``'s command lines are: the same ``python -m tf1_train.main`` run
without the 3 s of CPU a fresh interpreter spends importing TensorFlow (a
job's tests start about 30 tasks; the launcher's tests start theirs fresh,
as the launcher does).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from typing import Dict, List, Sequence

from tests.conftest import start_cli
from tests.fork_server import ForkedChild
from tf1_train.cluster import spec

# Small and fast: mlp on the embedded digits, CPU towers without the warning.
TRAIN_FLAGS = [
    "--model=mlp",
    "--dataset=digits",
    "--device=cpu",
    "--batch_size=32",
    "--optimizer=momentum",
    "--learning_rate=0.05",
    "--momentum=0.9",
    "--seed=1",
    "--num_warmup_steps=0",
]


class Job:
    """One ps and ``num_workers`` workers sharing ``flags``."""

    def __init__(self, tmp_path, flags: Sequence[str], num_workers: int = 2):
        ports = spec.free_ports(1 + num_workers)
        self.ps = f"127.0.0.1:{ports[0]}"
        self.workers = [f"127.0.0.1:{p}" for p in ports[1:]]
        self.dir = tmp_path
        os.makedirs(tmp_path, exist_ok=True)
        self.flags = list(TRAIN_FLAGS) + list(flags)
        self.procs: Dict[str, subprocess.Popen | ForkedChild] = {}
        self.runs: Dict[str, int] = {}  # name -> how many times started

    def __enter__(self) -> Job:
        return self

    def __exit__(self, *exc) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def argv(self, name: str, extra: Sequence[str] = ()) -> List[str]:
        job, index = re.fullmatch(r"(ps|worker)(\d+)", name).groups()
        return [
            sys.executable,
            "-m",
            "tf1_train.main",
            f"--job_name={job}",
            f"--task_index={index}",
            f"--ps_hosts={self.ps}",
            f"--worker_hosts={','.join(self.workers)}",
            *self.flags,
            *extra,
        ]

    def log(self, name: str, stream: str = "out") -> str:
        return os.path.join(self.dir, f"{name}.{self.runs[name]}.{stream}")

    def start(self, *names: str, extra: Sequence[str] = ()) -> None:
        """Starts the named tasks; ``extra`` flags go to these tasks only."""
        for name in names:
            self.runs[name] = self.runs.get(name, 0) + 1
            argv = self.argv(name, extra)
            self.procs[name] = start_cli(
                argv[3:], self.log(name), argv[2], err_path=self.log(name, "err")
            )

    def text(self, name: str, stream: str = "out") -> str:
        with open(self.log(name, stream)) as f:
            return f.read()

    def wait_for_line(self, name: str, pattern: str, timeout: float) -> re.Match:
        """Polls the task's stdout until ``pattern`` matches; fails if the
        task exits first or the timeout passes."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text(name))
            if found:
                return found
            if self.procs[name].poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(
            f"{name} never printed {pattern!r}:\n{self.text(name)}\n{self.text(name, 'err')}"
        )

    def wait(self, name: str, timeout: float) -> int:
        return self.procs[name].wait(timeout=timeout)

    def kill(self, name: str) -> None:
        self.procs[name].send_signal(signal.SIGKILL)
        self.procs[name].wait()

    def steps(self, name: str) -> List[int]:
        """The global steps of the task's progress lines so far."""
        return [int(s) for s in re.findall(r"^step (\d+)/", self.text(name), re.M)]

    def wait_while_stepping(self, name: str, stall_secs: float) -> int:
        """Waits for the task to exit as long as it keeps making progress: fails
        if its output has not grown for ``stall_secs`` (a hang, not a slow
        machine, which only makes the run longer). Returns the exit status."""
        size, changed = -1, time.monotonic()
        while self.procs[name].poll() is None:
            now_size = os.path.getsize(self.log(name))
            if now_size != size:
                size, changed = now_size, time.monotonic()
            elif time.monotonic() - changed > stall_secs:
                raise AssertionError(
                    f"{name} printed nothing for {stall_secs} s:\n"
                    f"{self.text(name)[-3000:]}\n{self.text(name, 'err')[-3000:]}"
                )
            time.sleep(0.2)
        return self.procs[name].returncode
