"""Graceful stop on SIGTERM / SIGINT, as cluster schedulers send on preemption.

The first signal only sets a flag: the loop finishes its step, saves a
checkpoint and run_summary.json, and returns normally; main.py then exits
with 128 + the signal's number (143 for SIGTERM, 130 for SIGINT), which
schedulers read as "stopped, restart me" rather than "succeeded". The
handler also puts the operating system's default action back, so a second
signal ends the process at once, even while TensorFlow is inside a long C++
call that a Python handler could not interrupt. That is safe because every file
a run writes appears atomically: checkpoint bundles are written to
``*.tempstate*`` files and renamed, the ``checkpoint`` state file and
run_summary.json are written to a temporary file and renamed.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator, Optional

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopRequest:
    """Set by the first SIGTERM/SIGINT; read by the loop after each step."""

    def __init__(self) -> None:
        self.signal_name: Optional[str] = None

    @property
    def requested(self) -> bool:
        return self.signal_name is not None

    def _handle(self, signum, frame) -> None:
        del frame
        # No printing here: the handler may interrupt a print of the loop, and
        # a re-entrant write on sys.stdout raises. The loop reports it.
        self.signal_name = signal.Signals(signum).name
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)


@contextlib.contextmanager
def graceful_stop() -> Iterator[StopRequest]:
    """Installs the handlers for the duration of a run, then restores the old ones.

    Python allows handlers only in the main thread; elsewhere (a run started
    from a worker thread) signals keep their previous behaviour.
    """
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, request._handle)
    try:
        yield request
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
