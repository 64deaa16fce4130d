"""Forking entry-point runs from a process that imported TensorFlow once.

A fresh interpreter spends over 3 s of CPU importing TensorFlow on this
machine; a child forked from a process that has imported it, and has not yet
created a session, an eager context or a thread pool, starts at once. Three
servers use this: tests/fault_worker.py (runs to kill, with fault points),
tests/warm_cli.py (the entry points' command lines of tests/conftest.py
``run_cli``) and tests/warm_compat.py (``python -m tf1_train.compat``'s). The
server side is ``serve(child)``; the test side is ``ForkClient``.

Protocol, one JSON object per line on the server's stdin, one reply per line
on its stdout:

  {...the server's request...} -> {"pid": pid}   (a child forked for it)
  {"wait": pid} -> {"status": s}                 (s < 0: ended by signal -s)
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def serve(child: Callable[[dict], None]) -> None:
    """Answers requests on stdin until it closes; ``child(request)`` runs in
    the forked child and never returns (see ``exit_with``)."""
    # What the entry points do once TensorFlow is loaded, done before the
    # first fork: a child's full collections then skip the server's 270,000
    # objects instead of touching each one's page, which copy-on-write then
    # copied into the child (the bad-input table: 33 -> 27 s of CPU).
    from tf1_train import env

    env.freeze_imports()
    for line in sys.stdin:
        request = json.loads(line)
        if "wait" in request:
            _, status = os.waitpid(request["wait"], 0)
            reply = {"status": os.waitstatus_to_exitcode(status)}
        else:
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                child(request)
            reply = {"pid": pid}
        print(json.dumps(reply), flush=True)


def exit_with(run: Callable[[], None], python_exit: bool = False) -> None:
    """Runs an entry point in a forked child and ends the child with its exit
    status (0, SystemExit's code, or 1 and the traceback); never returns.

    ``python_exit``: first what the interpreter's own exit does, for programs
    that rely on it (a legacy TF1 program's Supervisor and queue-runner
    threads, which it does not join; its atexit flushes): the non-daemon
    threads joined (``threading._shutdown``, as multiprocessing's forked
    children do), then the atexit handlers run."""
    code = 1
    try:
        run()
        code = 0
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException:
        traceback.print_exc()
    finally:
        if python_exit:
            _python_exit()
        # os._exit, as a cluster task ends, through tf1_train's hard_exit: the
        # output flushed and AutoGraph's generated modules deleted (an atexit
        # hook would have; each forked run left its files in the temp directory)
        from tf1_train.errors import hard_exit

        hard_exit(code)


def _exit_code(code) -> int:
    """The status the interpreter exits with for ``SystemExit(code)``: a code
    that is neither None nor an int is printed, and the status is 1."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


def _python_exit() -> None:
    """The interpreter's exit, in its order: wait for the non-daemon threads,
    then the atexit handlers (each one's error printed, as the interpreter
    prints it, and the rest run)."""
    try:
        threading._shutdown()
    except BaseException:
        traceback.print_exc()
    atexit._run_exitfuncs()


def redirect(stdout: str, stderr: str) -> None:
    """The child's fds 1 and 2 into these files (the same path: one log), 0 from /dev/null."""
    for fd, path in ((1, stdout), (2, stderr)):
        if fd == 2 and path == stdout:
            os.dup2(1, 2)
            continue
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)


class ForkClient:
    """The test side: starts the server script, asks it to fork, waits for a
    child with a deadline. Every wait is bounded and says what it waited
    for; ``ask`` may be called from several threads."""

    def __init__(self, script: str, env=None, reply_timeout: float = 120.0):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tests", script)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.script, self.reply_timeout = script, reply_timeout
        self._lock = threading.Lock()

    def ask(self, request) -> dict:
        with self._lock:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], self.reply_timeout)
            assert ready, f"{self.script} did not answer {request} in {self.reply_timeout} s"
            line = self.proc.stdout.readline()
        assert line, f"{self.script} exited"
        return json.loads(line)

    def wait(self, pid: int, timeout: float, what: str) -> int:
        """The child's exit status (negative: killed by that signal); a child
        still running after ``timeout`` s is killed and the call fails."""
        deadline = time.monotonic() + timeout
        while not is_zombie(pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        hung = not is_zombie(pid)
        if hung:
            os.kill(pid, signal.SIGKILL)
        status = self.ask({"wait": pid})["status"]
        assert not hung, f"{what} did not end within {timeout} s; killed it"
        return status

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


class ForkedChild:
    """A child forked by a ForkClient's server: the part of Popen's
    interface the tests use (returncode < 0: ended by that signal, as
    Popen's). A test that starts a run and signals it (tests/conftest.py
    ``start_cli``, tests/cluster_job.py) holds one."""

    def __init__(self, warm, pid: int):
        self.warm, self.pid, self.returncode = warm, pid, None

    def poll(self):
        if self.returncode is None and is_zombie(self.pid):
            self.returncode = self.warm.ask({"wait": self.pid})["status"]
        return self.returncode

    def wait(self, timeout=None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"task {self.pid}", timeout)
            time.sleep(0.01)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def is_zombie(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
