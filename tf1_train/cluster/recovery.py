"""Recovering from a lost parameter server, as MonitoredTrainingSession does.

When a step fails with ``UnavailableError`` or ``AbortedError`` (a ps died,
or was restarted and no longer knows the session's graphs), a worker drops
its session (closing it would wait for the lost task), waits for every ps to
accept connections again (whatever restarts it: a scheduler, an operator;
the launcher does not restart tasks), and opens a new session: the chief
restores the newest checkpoint, which re-initialises the variables on the
restarted ps; the other workers wait for the chief again. Steps since that
checkpoint are redone. A ps that does not come back within
--startup_timeout_secs ends the worker with one line and the retryable exit
status. A frozen ps (a step past --operation_timeout_secs, and no answer
to a new session either) is not recovered in-process.
"""

from __future__ import annotations

import sys
from typing import Callable, Optional

import tensorflow as tf

from tf1_train.cluster import spec, watchdog
from tf1_train.config import ClusterConfig
from tf1_train.errors import ClusterError

RECOVERABLE = (tf.errors.UnavailableError, tf.errors.AbortedError)
# A step can also outlive --operation_timeout_secs when a ps dies mid-step
# (the step's cancellation waits): recovered only where it is not a frozen ps.
TIMED_OUT = tf.errors.DeadlineExceededError
MAX_FRUITLESS = 3  # recoveries in a row that ran no step before failing again
PROBE_SECS = 5  # a ps that died answers a new session at once, a frozen one never


class Recovery:
    """Counts recoveries and waits for the parameter servers after a loss."""

    def __init__(self, cl: ClusterConfig, name: str):
        self.cl, self.name = cl, name
        self.count = 0
        self.fruitless = 0

    def timed_out_but_recoverable(self, sync: bool, probe: Callable[[], None]) -> bool:
        """After a step timed out: True if a ps died (its port refuses
        connections) or, in async mode, every ps answers a new session within PROBE_SECS
        (``probe`` opens one). A frozen ps never answers: the watchdog then
        ends the task with one line and the retryable status. In sync mode a
        timeout is a missing replica, not recovered."""
        if any(spec.refused(a) for a in self.cl.ps_hosts):
            return True
        if sync:
            return False
        what = (
            "training stopped: no answer within --operation_timeout_secs="
            f"{self.cl.operation_timeout_secs} (DeadlineExceededError); checking that the "
            "parameter servers answer a new session"
        )
        with watchdog.guard(self.name, what, PROBE_SECS):
            probe()
        return True

    def after(self, error: tf.errors.OpError, steps_run: int, stopped: Optional[str]) -> None:
        """Waits until every ps answers again, or raises ClusterError.

        Args:
          error: what the failed step raised.
          steps_run: steps the failed session ran (none, several times in a
            row: the failure is not a lost ps and is reported instead).
          stopped: a stop signal already received: nothing is waited for.
        """
        self.fruitless = 0 if steps_run else self.fruitless + 1
        what = f"{type(error).__name__}: {_detail(error)}"
        if stopped or self.fruitless >= MAX_FRUITLESS:
            raise ClusterError(
                f"{self.name}: training stopped: {what}; restart the missing task, then this "
                "worker: the chief resumes from its last checkpoint"
            )
        self.count += 1
        secs = self.cl.startup_timeout_secs
        print(
            f"{self.name}: lost the cluster ({what}); waiting up to {secs} s for every "
            "parameter server to answer, then opening a new session (recovery "
            f"{self.count})",
            file=sys.stderr,
            flush=True,
        )
        ps = range(len(self.cl.ps_hosts))
        with watchdog.guard(self.name, "waiting for the parameter servers", secs + 10):
            try:
                spec.wait_for_tasks(self.cl, "ps", ps, secs)
            except ClusterError as e:
                raise ClusterError(
                    f"{self.name}: a parameter server was lost during training ({what}) and "
                    f"did not come back: {e}"
                ) from None


def _detail(error: tf.errors.OpError) -> str:
    lines = [x.strip() for x in error.message.splitlines() if x.strip()]
    first = lines[0] if lines else ""
    return first[:200]
