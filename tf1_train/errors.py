"""The exception types that reach the user as one line.

Anything raised as ``UserError`` reaches the user as a single line (no
traceback) and a non-zero exit status; the message names the flag or file and
says what would be valid. ``TrainingDiverged`` is not bad input but a run that
went wrong (NaN or Inf loss): also one line, with its own exit status so
schedulers and scripts can tell it from a usage error. ``RunFailed`` is the
machine running out of something mid-run (device memory, disk space): the
flags were fine, the line says what to change and which checkpoint is intact.
``ClusterError`` is a between-graph job that broke: a parameter server or the
chief was lost or did not answer in time.

The exit statuses are chosen for schedulers that read them (Kubeflow's TFJob
with ``restartPolicy: ExitCode`` retries 128-255 and gives up on 1-127):
permanent failures (bad input, divergence, out of memory or disk) are below
128; a lost or unreachable cluster task, and a stop by SIGTERM/SIGINT after a
clean save (128 + the signal's number, as a shell reports it), are above, so
"preempted, resume me" is never read as "succeeded" nor as "give up".
"""

import os
import signal
import sys
from typing import NoReturn

EXIT_BAD_INPUT = 2
EXIT_DIVERGED = 3
EXIT_RUN_FAILED = 5
# sysexits' EX_TEMPFAIL (75) moved into the range schedulers retry.
EXIT_CLUSTER = 128 + 75


def signal_status(signal_name: str) -> int:
    """128 + the signal's number: 143 for SIGTERM, 130 for SIGINT."""
    return 128 + int(signal.Signals[signal_name])


def hard_exit(status: int) -> NoReturn:
    """Ends the process at once (``os._exit``), as a cluster task must: the
    interpreter's shutdown would wait on a session whose peer is gone.

    What that shutdown would have done that matters to the user is done here:
    the output is flushed, and AutoGraph's generated modules (each
    ``tf.data`` map function's, written to the temp directory and removed
    only by an ``atexit`` hook) are deleted, so that a long-lived machine's
    /tmp does not fill with one file per function per task run.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name.startswith("__autograph_generated_file") and path:
            try:
                os.remove(path)
            except OSError:
                pass
    os._exit(status)


class UserError(Exception):
    """Bad input from the user: a flag value, a combination, a file, a port."""

    def __str__(self) -> str:
        # Raised while tf.function traces user code, the error comes back with
        # AutoGraph's "in user code:" stack in front of the message: the one
        # line to print is the last, after "UserError: ".
        text = super().__str__()
        if not text.startswith("in user code:"):
            return text
        last = text.strip().splitlines()[-1].strip()
        return last.split("UserError: ", 1)[-1]


class TrainingDiverged(Exception):
    """The loss became NaN or Inf; the bad state was not saved."""


class RunFailed(Exception):
    """Out of device memory or disk space during a run; nothing saved was lost."""


class ClusterError(Exception):
    """A cluster task was lost or never answered within its timeout."""
