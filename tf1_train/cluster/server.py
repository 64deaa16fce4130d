"""TensorFlow's gRPC runtime for a cluster task: servers, configs, shutdown.

Parameter servers do not sit in ``server.join()``, which never returns
(PORTING.md P9): each one owns a shutdown queue and exits 0 once every worker
has put its token there, so a finished job leaves no process behind. Nor
do they wait forever for a chief that died: once seen, a chief that stays
unreachable for --startup_timeout_secs (the time a restarted chief has to
come back) ends the ps with one line and the retryable exit status (203).
"""

from __future__ import annotations

import sys
import time
from typing import List, Optional

import tensorflow as tf

from tf1_train.cluster import spec
from tf1_train.config import ClusterConfig, parse_address
from tf1_train.errors import ClusterError, UserError

v1 = tf.compat.v1

POLL_SECS = 0.5  # a ps looks at its shutdown queue this often
NOTIFY_TIMEOUT_MS = 5000  # a worker's token to a lost ps is given up after this
CHIEF_PROBE_SECS = 2.0  # a ps checks this often that the chief is still there


def cluster_spec(cfg: ClusterConfig) -> tf.train.ClusterSpec:
    return tf.train.ClusterSpec({"ps": list(cfg.ps_hosts), "worker": list(cfg.worker_hosts)})


def server_config(cfg: ClusterConfig, base: Optional[v1.ConfigProto] = None) -> v1.ConfigProto:
    """``base`` (devices, threads, GPU options) plus the cluster's settings.

    Device filters keep a task from waiting on tasks it never talks to;
    ``operation_timeout_in_ms`` turns a blocked op (a lost ps, a sync
    replica that never arrives) into DeadlineExceededError instead of a hang.
    """
    config = v1.ConfigProto()
    if base is not None:
        config.CopyFrom(base)
    else:
        config.device_count["GPU"] = 0  # a ps keeps its hands off the GPUs
    config.device_filters[:] = spec.device_filters(cfg.job_name, cfg.task_index)
    config.operation_timeout_in_ms = cfg.operation_timeout_secs * 1000
    return config


def start_server(cfg: ClusterConfig, config: v1.ConfigProto) -> v1.train.Server:
    """Starts this task's server, or fails with one line naming the port.

    The gRPC server listens on all interfaces without authentication
    (PORTING.md P21): run clusters on trusted networks only.
    """
    spec.check_own_port(cfg)
    address = cfg.hosts(cfg.job_name)[cfg.task_index]
    _, port = parse_address(address)
    print(
        f"{spec.task_name(cfg.job_name, cfg.task_index)}: gRPC server on port {port} of "
        f"every interface (IPv4 and IPv6; the cluster names it {address}), without "
        "authentication: keep the port unreachable from untrusted networks",
        flush=True,
    )
    try:
        return v1.train.Server(
            cluster_spec(cfg),
            job_name=cfg.job_name,
            task_index=cfg.task_index,
            config=config,
            start=True,
        )
    except (tf.errors.OpError, ValueError) as e:
        field = "ps_hosts" if cfg.job_name == "ps" else "worker_hosts"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UserError(
            f"{cfg.name(field)}: cannot start the server of "
            f"{spec.task_name(cfg.job_name, cfg.task_index)} at {address}: {first}"
        ) from None


def shutdown_queue(ps_index: int, num_workers: int) -> tf.queue.FIFOQueue:
    """The queue on ps ``ps_index`` where workers leave their "done" token.

    Built identically by the ps and every worker: the shared_name makes all
    of them refer to the one queue living on that ps.
    """
    with tf.device(f"/job:ps/task:{ps_index}"):
        return tf.queue.FIFOQueue(
            max(num_workers, 1),
            [tf.int32],
            shapes=[[]],
            shared_name=f"tf1_train_shutdown_ps{ps_index}",
            name=f"shutdown_ps{ps_index}",
        )


def shutdown_ops(cfg: ClusterConfig) -> List[tf.Operation]:
    """Worker side, built into the worker's graph: one enqueue per ps."""
    return [
        shutdown_queue(i, cfg.num_workers).enqueue(tf.constant(cfg.task_index, tf.int32))
        for i in range(len(cfg.ps_hosts))
    ]


def notify_parameter_servers(sess: v1.Session, ops: List[tf.Operation]) -> bool:
    """Leaves this worker's token on every ps; a ps already gone is reported,
    not fatal. Returns False if any ps was not told."""
    options = v1.RunOptions(timeout_in_ms=NOTIFY_TIMEOUT_MS)
    told = True
    for i, op in enumerate(ops):
        try:
            sess.run(op, options=options)
        except tf.errors.OpError as e:
            told = False
            print(
                f"warning: could not tell ps{i} that this worker is done "
                f"({type(e).__name__}); it stops on its own after its timeout",
                file=sys.stderr,
                flush=True,
            )
    return told


def run_parameter_server(cfg: ClusterConfig) -> int:
    """A ps task: serves variables until the workers are done; returns 0.

    It waits without limit for the chief (worker 0: the one that saves),
    then at most ``operation_timeout_secs`` for the others, which stop on
    the same global step and so finish within moments of the chief; a
    worker that died never reports, and the ps says so and exits anyway.
    """
    name = spec.task_name("ps", cfg.task_index)
    server = start_server(cfg, server_config(cfg))
    graph = tf.Graph()
    with graph.as_default():
        queue = shutdown_queue(cfg.task_index, cfg.num_workers)
        size, token = queue.size(), queue.dequeue()
    with v1.Session(server.target, graph=graph, config=server_config(cfg)) as sess:
        missing = _collect_tokens(sess, size, token, cfg, name)
    if missing:
        workers = ", ".join(spec.task_name("worker", i) for i in missing)
        print(
            f"warning: {name}: {workers} did not report done within "
            f"{cfg.operation_timeout_secs} s of the chief; exiting anyway",
            file=sys.stderr,
            flush=True,
        )
    else:
        print(f"{name}: all workers done, exiting", flush=True)
    return 0


def _collect_tokens(sess, size, token, cfg: ClusterConfig, name: str) -> List[int]:
    """Takes tokens until every worker reported or the grace period ran out.

    The queue's size is polled rather than a dequeue timed out: a cancelled
    dequeue makes TensorFlow log warnings every time. Returns the workers
    that never reported.
    """
    pending = set(range(cfg.num_workers))
    chief_done_at = None
    watch = ChiefWatch(cfg, name)
    while pending:
        if sess.run(size) == 0:
            if chief_done_at and time.monotonic() - chief_done_at > cfg.operation_timeout_secs:
                break
            if chief_done_at is None:
                watch.check(time.monotonic())
            time.sleep(POLL_SECS)
            continue
        worker = int(sess.run(token))
        pending.discard(worker)
        if worker == 0:
            chief_done_at = time.monotonic()
        done = cfg.num_workers - len(pending)
        print(f"{name}: worker{worker} done ({done} of {cfg.num_workers})", flush=True)
    return sorted(pending)


class ChiefWatch:
    """Bounds a parameter server's wait for the chief.

    The ps cannot tell a long run from a dead chief by its queue alone, so
    it probes the chief's port every CHIEF_PROBE_SECS. Only a chief seen
    once counts as lost when it goes quiet: where a firewall keeps the ps
    from reaching the workers at all, the ps keeps waiting, as before.
    """

    def __init__(self, cfg: ClusterConfig, name: str, reachable=spec.reachable):
        self.address = cfg.worker_hosts[0]
        self.timeout = cfg.startup_timeout_secs
        self.name, self.reachable = name, reachable
        self.seen = False
        self.lost_at: Optional[float] = None
        self.next_probe = 0.0

    def check(self, now: float) -> None:
        """Probes if due; raises ClusterError once the chief has been gone too long."""
        if now < self.next_probe:
            return
        self.next_probe = now + CHIEF_PROBE_SECS
        chief = f"the chief (worker0 at {self.address})"
        if self.reachable(self.address):
            if not self.seen or self.lost_at is not None:
                print(f"{self.name}: {chief} is up", flush=True)
            self.seen, self.lost_at = True, None
        elif self.seen and self.lost_at is None:
            self.lost_at = now
            print(
                f"{self.name}: {chief} is not reachable; waiting up to {self.timeout} s "
                "for it to come back (--startup_timeout_secs)",
                flush=True,
            )
        elif self.lost_at is not None and now - self.lost_at > self.timeout:
            raise ClusterError(
                f"{self.name}: {chief} has not been reachable for {self.timeout} s "
                "(--startup_timeout_secs) and did not report done; exiting. Rerun the "
                "job: the chief resumes from its last checkpoint"
            )
