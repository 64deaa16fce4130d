"""Deadlines on the blocking TensorFlow calls of a cluster task.

Some calls of the gRPC runtime have no timeout of their own: creating a
session waits for device discovery on every task in the device filters (a
frozen ps, or a port held by another program, never answers), and closing a
session waits for a lost task. While the main thread is inside such a call,
Python runs no signal handler either, so a SIGTERM from a scheduler would be
acted on only after the call.

``guard`` watches one such call from a thread: past its deadline the thread
prints one line naming what was waited for and ends the process with the
retryable status (``errors.hard_exit``: a normal exit would wait on the same call).
A SIGTERM or SIGINT that arrives meanwhile is seen at once through
``signal.set_wakeup_fd`` (written by the C-level handler, so it works while
the main thread is blocked): if the call has not returned within
STOP_GRACE_SECS, the process exits with 128 + the signal, having nothing to
save yet (the chief saves only once training runs).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from typing import Iterator, Optional

from tf1_train.errors import EXIT_CLUSTER, hard_exit

STOP_GRACE_SECS = 5.0
_STOP_SIGNALS = (int(signal.SIGTERM), int(signal.SIGINT))


def _say_and_exit(line: str, status: int) -> None:
    try:
        sys.stdout.flush()
        print(line, file=sys.stderr, flush=True)
    finally:
        hard_exit(status)


@contextlib.contextmanager
def guard(
    task: str, what: str, secs: float, hint: str = "", stopped: Optional[str] = None
) -> Iterator[None]:
    """Ends the process if the ``with`` block is still running after ``secs``.

    Args:
      task: the task's name for the line (worker0).
      what: what the block waits for ("creating the session").
      secs: the deadline.
      hint: appended to the line (what to check).
      stopped: the name of a stop signal already received, if any: the block
        then gets only STOP_GRACE_SECS.
    """
    done = threading.Event()
    wakeup = _SignalPipe.open()
    first = int(signal.Signals[stopped]) if stopped else None
    watcher = threading.Thread(
        target=_watch, args=(done, wakeup, task, what, secs, hint, first), daemon=True
    )
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        if wakeup is not None:
            wakeup.close()


def _watch(done, wakeup, task: str, what: str, secs: float, hint: str, stop_by) -> None:
    deadline = time.monotonic() + (STOP_GRACE_SECS if stop_by else secs)
    while not done.is_set():
        now = time.monotonic()
        if stop_by is not None and now > deadline:
            name = signal.Signals(stop_by).name
            _say_and_exit(
                f"{task}: {name} received while {what}; exiting at once (nothing saved yet)",
                128 + stop_by,
            )
        if stop_by is None and now > deadline:
            _say_and_exit(
                f"error: {task}: {what}: no answer within {secs:g} s{hint}; "
                f"exiting with status {EXIT_CLUSTER} (retryable: rerun the task)",
                EXIT_CLUSTER,
            )
        step = min(max(deadline - now, 0.0), 0.2)
        if wakeup is None:
            done.wait(step)
            continue
        got = wakeup.poll(step)
        if got in _STOP_SIGNALS and stop_by is None:
            stop_by, deadline = got, time.monotonic() + STOP_GRACE_SECS


class _SignalPipe:
    """A pipe the C-level signal handler writes each signal's number into."""

    def __init__(self, r: int, w: int, previous: int):
        self.r, self.w, self.previous = r, w, previous

    @classmethod
    def open(cls) -> Optional[_SignalPipe]:
        """None outside the main thread (Python allows the wakeup fd only there)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        r, w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        previous = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        return cls(r, w, previous)

    def poll(self, timeout: float) -> Optional[int]:
        """The next signal number written, or None after ``timeout``."""
        ready, _, _ = select.select([self.r], [], [], max(timeout, 0.0))
        if not ready:
            return None
        data = os.read(self.r, 1)
        return data[0] if data else None

    def close(self) -> None:
        signal.set_wakeup_fd(self.previous)
        os.close(self.r)
        os.close(self.w)
