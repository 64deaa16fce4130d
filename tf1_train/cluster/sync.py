"""--sync_replicas: SyncReplicasOptimizer, one update per global step.

Every worker pushes its gradients into accumulators on the parameter
servers and then waits for a token. The chief runs the aggregation loop:
take ``replicas_to_aggregate`` gradients per variable (= the number of
workers), apply their mean once, increment the global step, hand out one
token per worker. Gradients computed for an older global step are dropped
by the accumulators.

Two choices differ from SyncReplicasOptimizerHook's defaults:

* No initial tokens. The hook's default (``replicas_to_aggregate`` tokens)
  lets a worker start its second step before the first update, so one fast
  worker can supply both gradients of an update. With none, every worker
  waits for each update: lockstep. (``replicas_to_aggregate`` counts
  gradients, not distinct workers, so even in lockstep a worker that takes
  another's token can do so; see docs/PORTING.md.)
* A worker that stops (last step, signal, error) puts one token per worker
  into the token queue, so a peer blocked waiting for an update that will
  never come returns, sees the global step, and stops too. Without it the
  last workers hang (PORTING.md P8).
"""

from __future__ import annotations

import threading
from typing import NamedTuple, Optional

import tensorflow as tf

v1 = tf.compat.v1


class SyncOps(NamedTuple):
    """What a session needs around a SyncReplicasOptimizer."""

    local_init_op: tf.Operation  # chief: chief_init_op; others: local_step_init_op
    update_op: tf.Operation  # the chief's: one aggregated update per run
    release_op: tf.Operation  # one token per worker: frees blocked peers


def wrap(
    opt: v1.train.Optimizer, num_workers: int, averages=None, averaged=()
) -> v1.train.SyncReplicasOptimizer:
    """Aggregates one gradient per worker before every update; the chief's
    update then steps ``averages`` (an ExponentialMovingAverage, or None)
    of the ``averaged`` variables."""
    return v1.train.SyncReplicasOptimizer(
        opt,
        replicas_to_aggregate=num_workers,
        total_num_replicas=num_workers,
        variable_averages=averages,
        variables_to_average=list(averaged) or None,
    )


def build_ops(
    sync_opt: v1.train.SyncReplicasOptimizer,
    global_step: tf.Variable,
    num_workers: int,
    is_chief: bool,
) -> SyncOps:
    """The ops of ``SyncOps``; call after ``apply_gradients``."""
    update_op = sync_opt.get_chief_queue_runner().enqueue_ops[0]
    # The token queue has no public handle; it is created in apply_gradients.
    queue = sync_opt._sync_token_queue  # noqa: SLF001
    with tf.device(global_step.device), tf.name_scope("sync_release"):
        tokens = tf.fill([num_workers], global_step.read_value())
        release_op = queue.enqueue_many((tokens,))
    local_init = sync_opt.chief_init_op if is_chief else sync_opt.local_step_init_op
    # Made for SyncReplicasOptimizerHook; unused here (the distributed module
    # waits on every global variable), and unused it logs "never used".
    getattr(sync_opt.ready_for_local_init_op, "mark_used", lambda: None)()
    return SyncOps(local_init, update_op, release_op)


class ChiefUpdater:
    """The chief's aggregation loop in a thread, counting applied updates.

    What ``get_chief_queue_runner()`` runs under a Coordinator, written out
    so the count is known (a test compares it with the global step) and an
    update that waits longer than the operation timeout (workers still
    starting) is retried instead of ending the loop.
    """

    def __init__(self, sess: v1.Session, update_op: tf.Operation):
        self.sess, self.update_op = sess, update_op
        self.updates = 0
        self.error: Optional[tf.errors.OpError] = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sync_updates", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.sess.run(self.update_op)
            except tf.errors.DeadlineExceededError:
                continue
            except tf.errors.OpError as e:
                if not self._stopping.is_set():
                    self.error = e
                return
            self.updates += 1

    def stop(self) -> None:
        """Asks the loop to end; an update it is waiting in ends with the session."""
        self._stopping.set()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
