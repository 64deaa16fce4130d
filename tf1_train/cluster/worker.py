"""A worker task of between-graph training on TensorFlow's gRPC runtime.

Every worker builds the whole graph (``graph.build`` with a ``Worker``):
variables on the parameter servers through
``replica_device_setter(cluster=..., ps_strategy=greedy by bytes)``, its
towers on its own task, one shard of the data. The chief (worker 0)
initialises or restores the variables, saves checkpoints and TensorBoard
events and writes run_summary.json, with the single-process code
(``checkpoints``, ``loop``, ``train``); the other workers wait for it, with
a deadline, and only train. All of them stop when the shared global step
reaches --train_steps, then tell every ps they are done, and the parameter
servers exit by themselves (``server.run_parameter_server``).
"""

from __future__ import annotations

import array
import re
import sys
import time
from typing import List, NamedTuple, Optional

import tensorflow as tf

from tf1_train import checkpoints, devices, graph, loop, prelude, signals, train, warm_start
from tf1_train.cluster import recovery, server, spec, sync, watchdog
from tf1_train.config import ClusterConfig, Config
from tf1_train.errors import ClusterError

v1 = tf.compat.v1

RECOVERY_WAIT_SECS = 0.5  # how often a worker looks whether the chief is done (TF default: 30)
RELEASE_TIMEOUT_MS = 5000
_ABANDONED: List[v1.Session] = []  # sessions of a broken cluster, never closed


class Task(NamedTuple):
    """This worker's server, graph and session config."""

    cfg: Config
    plan: devices.DevicePlan
    g: graph.TrainGraph
    server: v1.train.Server  # kept referenced for the life of the task
    config: v1.ConfigProto
    name: str  # worker0, worker1, ...
    ready: tf.Tensor  # names of uninitialised variables: empty once the chief is done
    shutdown: List[tf.Operation]  # this worker's "done" token, one per ps


def run(cfg: Config, gpus_found: Optional[int] = None) -> train.RunResult:
    """Trains as worker ``cfg.cluster.task_index``; the chief writes run_summary.json.

    Raises:
      UserError: bad input or a busy port.
      ClusterError: a ps or the chief was lost or did not answer in time.
      TrainingDiverged: the loss became NaN or Inf.
    """
    if not cfg.cluster.is_chief:
        return _run(cfg, gpus_found)
    with prelude.writing_train_dir(cfg):  # the chief is train_dir's one writer
        return _run(cfg, gpus_found)


def _run(cfg: Config, gpus_found: Optional[int]) -> train.RunResult:
    wall_start = time.perf_counter()
    cl = cfg.cluster
    task = setup(cfg, gpus_found)
    spec.wait_for_tasks(cl, "ps", range(len(cl.ps_hosts)), cl.startup_timeout_secs)
    with signals.graceful_stop() as stop:
        outcome, restored, updates = _train(task, stop)
        summary = train.make_summary(cfg, task.plan, outcome, restored, wall_start)
        summary["cluster"] = cluster_summary(cl, len(outcome.losses), updates)
        if cl.is_chief:
            train.write_summary(cfg.run.train_dir, summary, outcome.checkpoint)
    print(
        f"{task.name}: {len(outcome.losses)} local steps, global step {outcome.global_step}"
        + (f", {updates} synchronous updates applied" if updates is not None else ""),
        flush=True,
    )
    return train.finish(
        cfg, summary, outcome, wrote_summary=cl.is_chief, stop_signal=stop.signal_name
    )


def setup(cfg: Config, gpus_found: Optional[int]) -> Task:
    """Builds the worker's graph and starts its server (the chief first
    checks its train_dir, so a bad one fails before anything starts)."""
    cl = cfg.cluster
    worker = graph.Worker(cl.task_index, cl.num_workers, cl.sync_replicas)
    plan, _, g = train.build(cfg, gpus_found, worker)
    config = server.server_config(cl, devices.session_config(cfg.devices, plan))
    srv = server.start_server(cl, config)
    with g.graph.as_default(), tf.device(worker.device):
        ready = v1.report_uninitialized_variables(v1.global_variables())
        shutdown = server.shutdown_ops(cl)
    train.print_startup(cfg, plan, g)
    print(describe(cl), flush=True)
    name = spec.task_name("worker", cl.task_index)
    return Task(cfg, plan, g, srv, config, name, ready, shutdown)


def describe(cl: ClusterConfig) -> str:
    """The startup line saying which task this is and how updates are made."""
    role = "chief" if cl.is_chief else "non-chief"
    mode = "synchronous (SyncReplicasOptimizer)" if cl.sync_replicas else "asynchronous"
    return (
        f"cluster ({cl.source}): worker {cl.task_index} of {cl.num_workers} ({role}), "
        f"{len(cl.ps_hosts)} ps; {mode} updates"
    )


def cluster_summary(cl: ClusterConfig, local_steps: int, updates: Optional[int]) -> dict:
    """run_summary.json's ``cluster`` entry."""
    out = {
        "job_name": cl.job_name,
        "task_index": cl.task_index,
        "num_ps": len(cl.ps_hosts),
        "num_workers": cl.num_workers,
        "sync_replicas": cl.sync_replicas,
        "local_steps": local_steps,
    }
    if updates is not None:
        out["sync_updates"] = updates
        out["replicas_to_aggregate"] = cl.num_workers
    return out


def _train(task: Task, stop: signals.StopRequest):
    """Session, restore or wait, input, steps, shutdown: (Outcome, Restored, updates).

    A lost parameter server is recovered from (``recovery``): a new session,
    the chief restoring the newest checkpoint. The parameter servers are told
    this worker is done unless a signal stopped it (it will be restarted) or
    the cluster itself broke.
    """
    recover = recovery.Recovery(task.cfg.cluster, task.name)
    first: Optional[checkpoints.Restored] = None  # where this process started
    losses = array.array("d")  # of the sessions lost before the last one
    while True:
        seen = _Seen()
        try:
            outcome, restored, updater = _attempt(task, stop, seen)
        except recovery.RECOVERABLE + (recovery.TIMED_OUT,) as e:
            first = first or seen.restored
            ran = seen.loop.losses if seen.loop else ()
            losses.extend(ran)
            sync = task.cfg.cluster.sync_replicas
            if isinstance(e, recovery.TIMED_OUT) and not recover.timed_out_but_recoverable(
                sync, lambda: _probe_session(task)
            ):
                raise _lost(task, e) from None
            try:
                recover.after(e, len(ran), stop.signal_name)
            except ClusterError as gone:
                raise ClusterError(f"{gone}{_kept(task)}") from None
            continue
        outcome = outcome._replace(losses=losses + outcome.losses)
        # Sync updates: those of the last session (a recovery rewinds the step).
        return outcome, first or restored, updater.updates if updater else None


def _kept(task: Task) -> str:
    """What a chief that gives up leaves behind: the checkpoint a rerun
    resumes from (the steps after it were on the lost ps)."""
    if not task.cfg.cluster.is_chief:
        return ""
    found = checkpoints.find(task.cfg.run.train_dir)
    if not found:
        return "; no checkpoint was saved"
    return f"; the newest checkpoint {found[0]} is intact: a rerun resumes from it"


class _Seen:
    """What a session got to before it was lost: its restore and its loop."""

    restored: Optional[checkpoints.Restored] = None
    loop: Optional[loop.TrainLoop] = None


def _probe_session(task: Task) -> None:
    """Asks every ps, through a new session, which variables are initialised:
    any answer, an error included, shows it is alive (the session is created
    on its first run; never closed: closing could wait for a ps)."""
    sess = v1.Session(task.server.target, graph=task.g.graph, config=task.config)
    _ABANDONED.append(sess)
    try:
        sess.run(task.ready)
    except tf.errors.OpError:
        pass


def _attempt(task: Task, stop: signals.StopRequest, seen: _Seen):
    """One session's life: (Outcome, Restored, updater). A recoverable loss
    of the cluster propagates, its session abandoned; any other cluster
    error becomes a ClusterError."""
    g = task.g
    sess = updater = None
    notify = True
    try:
        sess = _open_session(task, stop)
        restored = seen.restored = _restore(task, sess)
        updater = _start_updater(sess, task)
        sess.run(g.input_init, {g.start_step: restored.step})
        outcome = _loop(task, sess, stop, restored, seen)
        notify = outcome.stopped_by != "signal"
    except tf.errors.OpError as e:
        # After a failed cluster step, closing the session (also from its
        # __del__) waits forever for the lost task: keep it referenced and
        # let main.py end the process with errors.hard_exit.
        _ABANDONED.append(sess)
        sess = None
        if updater:
            updater.stop()
        if isinstance(e, recovery.RECOVERABLE + (recovery.TIMED_OUT,)):
            raise
        raise _lost(task, e) from None
    finally:
        if sess is not None:
            _shutdown(task, sess, updater, notify)
    return outcome, restored, updater


def _shutdown(task: Task, sess: v1.Session, updater, notify: bool) -> None:
    """Stops the chief's updater, closes the session, then tells every ps.

    In that order: a ps exits once it holds every worker's token, and a close
    that reaches a ps already gone waits for it (TensorFlow's close has no
    deadline of its own), so the last worker to report would end a finished
    job with the watchdog's 203. The session is closed while every ps still
    waits for this worker; the token goes through a session of its own,
    never closed. Each call has a deadline (``watchdog``).
    """
    if updater:
        updater.stop()
    cl = task.cfg.cluster
    with watchdog.guard(task.name, "closing its session", cl.operation_timeout_secs + 10):
        sess.close()
    if updater:
        updater.join(timeout=10)
    if notify and not _parameter_servers_gone(task):
        secs = len(task.shutdown) * server.NOTIFY_TIMEOUT_MS / 1000 + 10
        with watchdog.guard(task.name, "telling the parameter servers it is done", secs):
            tokens = v1.Session(task.server.target, graph=task.g.graph, config=task.config)
            _ABANDONED.append(tokens)  # closing it would wait for a ps that has exited
            server.notify_parameter_servers(tokens, task.shutdown)


def _parameter_servers_gone(task: Task) -> bool:
    """True, with one warning line, if a ps refuses connections after this
    worker's last step (it died; a frozen one still accepts): none can be
    told this worker is done, for a new session waits for every ps, and
    the tokens only let a ps exit, which a dead one has done. The steps,
    the chief's final save and its evaluation are behind: not an error."""
    cl = task.cfg.cluster
    gone = [i for i, address in enumerate(cl.ps_hosts) if spec.refused(address)]
    if not gone:
        return False
    names = ", ".join(f"{spec.task_name('ps', i)} at {cl.ps_hosts[i]}" for i in gone)
    print(
        f"warning: {task.name}: {names} gone after the last step (its port refuses "
        "connections); no parameter server is told this worker is done: one still "
        f"running gives up on the chief {cl.startup_timeout_secs} s after it exits "
        "(--startup_timeout_secs)",
        file=sys.stderr,
        flush=True,
    )
    return True


def _loop(task: Task, sess: v1.Session, stop, restored, seen: _Seen) -> loop.Outcome:
    """The single-process TrainLoop in the worker's role (kept in ``seen``,
    so the steps of a session lost midway are still counted)."""
    cfg, g = task.cfg, task.g
    chief = cfg.cluster.is_chief
    writer = train.open_writer(cfg, g, restored, cfg.run.summary_verbosity if chief else 0)
    role = loop.Role(chief, g.step_after, lambda: _release_peers(sess, g))
    try:
        seen.loop = loop.TrainLoop(sess, g, cfg, task.plan, writer, stop, restored, role)
        return seen.loop.run()
    finally:
        writer.close()


def _open_session(task: Task, stop: signals.StopRequest) -> v1.Session:
    """The chief's session at once; the others' once the chief is done.

    Creating a session waits for every parameter server to answer device
    discovery, without a timeout of its own: a deadline guards it. It
    waits at the first run, not in ``v1.Session()``: the chief's first
    question (which variables are initialised?) runs under the deadline.
    """
    cl = task.cfg.cluster
    ps = ", ".join(cl.ps_hosts)
    what = f"creating its session (device discovery on the parameter servers {ps})"
    hint = "; is a parameter server frozen, or is its port held by another program?"
    secs = cl.startup_timeout_secs + cl.operation_timeout_secs  # discovery, then one run
    with watchdog.guard(task.name, what, secs, hint, stop.signal_name):
        if not cl.is_chief:
            return _wait_for_chief(task)
        sess = v1.Session(task.server.target, graph=task.g.graph, config=task.config)
        try:
            sess.run(task.ready)
        except tf.errors.OpError:
            _ABANDONED.append(sess)  # closing it (its __del__ too) could wait for a ps
            raise
        return sess


def _restore(task: Task, sess: v1.Session) -> checkpoints.Restored:
    """The chief initialises or restores; the others start at the live step.
    Then every worker initialises its local variables and, in sync mode,
    sets its local step to the global step (the chief also the accumulators':
    chief_init_op), in that order, one run each."""
    cl, g = task.cfg.cluster, task.g
    if cl.is_chief:
        restored = _chief_restore(sess, g, task.ready, task.cfg.run)
    else:
        restored = checkpoints.Restored(None, int(sess.run(g.global_step)))
    sess.run(g.local_init)
    if g.sync is not None:
        sess.run(g.sync.local_init_op)
    return restored


def _chief_restore(sess: v1.Session, g: graph.TrainGraph, ready, run):
    """Restores the newest checkpoint, keeps live variables when there is
    none (a restarted chief before its first save), or initialises (from
    --init_checkpoint if given)."""
    if not checkpoints.find(run.train_dir) and len(sess.run(ready)) == 0:
        step = int(sess.run(g.global_step))
        print(f"no checkpoint: continuing from the live variables at global step {step}")
        return checkpoints.Restored(None, step)
    fresh = warm_start.starter(run.init_checkpoint, run.init_exclude)
    return checkpoints.restore_or_init(sess, g, run.train_dir, fresh)


def _wait_for_chief(task: Task) -> v1.Session:
    """A non-chief worker's session, once the chief has made the model ready.

    SessionManager polls every RECOVERY_WAIT_SECS instead of its default
    30 s (PORTING.md P9), and gives up after --startup_timeout_secs.
    """
    cl, g = task.cfg.cluster, task.g
    print(
        f"{task.name}: waiting for the chief ({cl.worker_hosts[0]}) to initialise or "
        f"restore the model (up to {cl.startup_timeout_secs} s)",
        flush=True,
    )
    manager = v1.train.SessionManager(
        ready_op=task.ready, graph=g.graph, recovery_wait_secs=RECOVERY_WAIT_SECS
    )
    try:
        return manager.wait_for_session(
            task.server.target, config=task.config, max_wait_secs=cl.startup_timeout_secs
        )
    except tf.errors.DeadlineExceededError:
        raise ClusterError(
            f"{task.name}: the chief ({cl.name('worker_hosts')} entry 0, "
            f"{cl.worker_hosts[0]}) did not initialise the model within "
            f"{cl.startup_timeout_secs} s; start it, or raise --startup_timeout_secs"
        ) from None


def _start_updater(sess: v1.Session, task: Task) -> Optional[sync.ChiefUpdater]:
    if task.g.sync is None or not task.cfg.cluster.is_chief:
        return None
    updater = sync.ChiefUpdater(sess, task.g.sync.update_op)
    updater.start()
    return updater


def _release_peers(sess: v1.Session, g: graph.TrainGraph) -> None:
    """Sync mode: frees workers waiting for an update that will not come."""
    if g.sync is None:
        return
    try:
        sess.run(g.sync.release_op, options=v1.RunOptions(timeout_in_ms=RELEASE_TIMEOUT_MS))
    except tf.errors.OpError as e:
        print(f"warning: could not release the other workers ({type(e).__name__})", flush=True)


def _lost(task: Task, error: tf.errors.OpError) -> ClusterError:
    """One line for a cluster op that failed or timed out."""
    cl = task.cfg.cluster
    what = type(error).__name__
    if isinstance(error, tf.errors.DeadlineExceededError):
        cause = f"no answer within --operation_timeout_secs={cl.operation_timeout_secs}"
        if cl.sync_replicas:
            cause += "; with --sync_replicas every worker must take part in every step"
        detail = checkpoints.reason(error)
    else:
        peer = re.search(r"remote target /job:(\w+)/replica:\d+/task:(\d+)", error.message)
        lost = spec.task_name(*peer.groups()) if peer else "a parameter server or the chief"
        cause = f"lost {lost}"
        grpc = re.search(r'grpc_message:"([^"]*)"', error.message)
        detail = grpc.group(1) if grpc else checkpoints.reason(error)
    return ClusterError(
        f"{task.name}: training stopped: {cause} ({what}: {detail}); restart the "
        "missing task, then this worker: the chief resumes from its last checkpoint"
    )
