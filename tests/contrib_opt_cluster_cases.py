"""``tf.contrib.opt``'s between-graph optimizers (elastic and model
averaging) on a real gRPC cluster, run
on TensorFlow 1.15.5 itself by scripts/make_contrib_opt_goldens.py (Python
3.7: no newer syntax here) and on tf1_train.compat by
tests/test_compat_contrib_opt_cluster.py, which holds the second to the first.

A case is ``fn(opt, tf) -> {name: array}``: ``opt`` is the module
``tensorflow.contrib.opt``, ``tf`` the v1 API. One ps and two workers run as
in-process servers on 127.0.0.1; each worker builds its own graph, as a
between-graph program does, and opens a ``MonitoredTrainingSession`` with the
optimizer's hook. The workers then take turns, one step each, from one
thread, so the order of their updates on the ps is fixed and the numbers are
too.
"""

import os
import socket
import tempfile
import threading
import time

import numpy as np

CASES = {}
STEPS = 5  # per worker


def case(fn):
    CASES[fn.__name__] = fn
    return fn


_RNG = np.random.RandomState(11)
DATA = [
    (_RNG.normal(0, 1, (8, 3)).astype(np.float32), _RNG.normal(0, 1, (8, 1)).astype(np.float32))
    for _ in range(2)
]


def _free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _cluster(tf):
    ports = _free_ports(3)
    spec = tf.train.ClusterSpec(
        {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    )
    servers = [
        tf.train.Server(spec, job_name=job, task_index=i, start=True)
        for job, i in (("ps", 0), ("worker", 0), ("worker", 1))
    ]
    return spec, servers


def _model(tf, task, getter, spec):
    """A linear regression on worker ``task``'s own batch: (loss, global_step)."""
    worker = f"/job:worker/task:{task}"
    setter = tf.train.replica_device_setter(worker_device=worker, ps_device="/job:ps", cluster=spec)
    with tf.device(setter), tf.variable_scope("", custom_getter=getter):
        step = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", initializer=tf.constant([[0.5], [-0.25], [1.0]]))
        b = tf.get_variable("b", initializer=tf.constant([0.1]))
        x, y = DATA[task]
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) + b - tf.constant(y)))
    return loss, step


def _values(tf, sess, prefix):
    """Every variable of the graph, by name (reading the ps' copies too)."""
    variables = tf.global_variables() + tf.local_variables()
    names = sorted(set(v.op.name for v in variables))
    by_name = {v.op.name: v for v in variables}
    got = sess.run([by_name[n] for n in names])
    return {prefix + n: np.asarray(v) for n, v in zip(names, got)}


def _run(tf, build):
    """``build(tf, task, spec) -> (train_op, hooks, saver)`` for each worker,
    stepped in turn: every variable after each worker's each step, then what
    worker 0's ``saver`` writes and the names in each collection. The
    sessions open at once (a synchronous start waits for every worker)."""
    spec, servers = _cluster(tf)
    ops, graphs, savers, hooks, unready = [], [], [], [], []
    out = {}
    for task in range(2):
        graph = tf.Graph()
        with graph.as_default():
            train_op, task_hooks, saver = build(tf, task, spec)
            for key in ("global", "local", "trainable"):
                variables = getattr(tf, key + "_variables")()
                out[f"collection/{task}/{key}"] = np.array(sorted(v.op.name for v in variables))
            unready.append(tf.report_uninitialized_variables(tf.global_variables()))
        ops.append(train_op)
        graphs.append(graph)
        savers.append(saver)
        hooks.append(task_hooks)
    sessions = [None, None]

    def open_session(task):
        if task:  # once the chief has initialized (the session would poll every 30 s)
            with tf.Session(servers[task + 1].target, graph=graphs[task]) as sess:
                while len(sess.run(unready[task])):
                    time.sleep(0.05)
        with graphs[task].as_default():
            sessions[task] = tf.train.MonitoredTrainingSession(
                master=servers[task + 1].target, is_chief=task == 0, hooks=hooks[task],
                save_checkpoint_secs=None, save_summaries_steps=None, log_step_count_steps=None,
            )  # fmt: skip

    threads = [threading.Thread(target=open_session, args=(task,)) for task in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(sessions), "a worker's session did not open within 60 s"
    for step in range(STEPS):
        for task in range(2):
            with graphs[task].as_default():
                sessions[task].run(ops[task])
                out.update(_values(tf, sessions[task], f"{step}/{task}/"))
    for sess in sessions:
        sess.close()
    with tf.Session(servers[1].target, graph=graphs[0]) as sess:
        scratch = tempfile.mkdtemp(prefix="contrib_opt_cluster_")
        path = savers[0].save(sess, os.path.join(scratch, "swapped"))
    reader = tf.train.load_checkpoint(path)
    for name in sorted(reader.get_variable_to_shape_map()):
        out["saved/" + name] = reader.get_tensor(name)
    return out


@case
def elastic_average(opt, tf):
    """EASGD: each worker moves towards the center every 2 of its steps, and
    the center towards it; the distance to the center is in the loss; the
    momentum slots are each worker's own; the swapping saver writes the
    centers under the model's names."""

    def build(tf, task, spec):
        getter = opt.ElasticAverageCustomGetter(worker_device=f"/job:worker/task:{task}")
        loss, step = _model(tf, task, getter, spec)
        with tf.device(f"/job:worker/task:{task}"):
            ea = opt.ElasticAverageOptimizer(
                tf.train.MomentumOptimizer(0.1, 0.9), num_worker=2,
                ea_custom_getter=getter, communication_period=2,
            )  # fmt: skip
            train_op = ea.minimize(loss, global_step=step)
        return train_op, [ea.make_session_run_hook(task == 0, task)], ea.swapping_saver()

    return _run(tf, build)


@case
def elastic_average_synchronous(opt, tf):
    """The same with ``synchronous=True`` (each worker waits at the start for
    the other), rho 0, a moving rate of 0.3, plain SGD, every 3 steps."""

    def build(tf, task, spec):
        getter = opt.ElasticAverageCustomGetter(worker_device=f"/job:worker/task:{task}")
        loss, step = _model(tf, task, getter, spec)
        with tf.device(f"/job:worker/task:{task}"):
            ea = opt.ElasticAverageOptimizer(
                tf.train.GradientDescentOptimizer(0.2), 2, getter, communication_period=3,
                moving_rate=0.3, rho=0.0, synchronous=True,
            )  # fmt: skip
            train_op = ea.minimize(loss, global_step=step)
        return train_op, [ea.make_session_run_hook(task == 0, task)], ea.swapping_saver()

    return _run(tf, build)


@case
def unplaced_shared_queue(opt, tf):
    """Not an optimizer: why the synchronous start's queues are pinned. A
    queue shared by name between two workers, made without a device and on
    the ps: does the token worker 0 enqueues reach worker 1?"""
    spec, servers = _cluster(tf)
    out = {}
    for where, device in (("unplaced", None), ("on_ps", "/job:ps/task:0")):
        ops = []
        for task in range(2):
            with tf.Graph().as_default() as graph, tf.device(device):
                queue = tf.FIFOQueue(2, [tf.bool], shapes=[[]], shared_name="token_" + where)
                ops.append((graph, queue.dequeue() if task else queue.enqueue(tf.constant(True))))
        config = tf.ConfigProto(operation_timeout_in_ms=2000)
        reached = True
        for task, (graph, op) in enumerate(ops):
            with tf.Session(servers[task + 1].target, graph=graph, config=config) as sess:
                try:
                    sess.run(op)
                except tf.errors.DeadlineExceededError:
                    reached = False
        out[where + "/reached"] = np.array(reached)
    return out


@case
def model_average(opt, tf):
    """Model averaging: every 2 of its steps each worker's copy is replaced
    by the mean of both (the chief counts the global step). The workers step
    at once, each in its thread, since they wait for each other: each
    records its own variables after each step, the global ones at the end."""
    spec, servers = _cluster(tf)
    graphs, ops, sessions = [], [], []
    for task in range(2):
        with tf.Graph().as_default() as graph:
            getter = opt.ModelAverageCustomGetter(worker_device=f"/job:worker/task:{task}")
            loss, step = _model(tf, task, getter, spec)
            with tf.device(f"/job:worker/task:{task}"):
                # plain SGD: a slot would be a global variable on the worker, which
                # only that worker's chief could initialize (TF 1.15 waited forever)
                ma = opt.ModelAverageOptimizer(
                    tf.train.GradientDescentOptimizer(0.1), 2, task == 0, getter, interval_steps=2
                )
                ops.append(ma.minimize(loss, global_step=step))
            hooks = [ma.make_session_run_hook()]
            sessions.append(
                tf.train.MonitoredTrainingSession(
                    master=servers[task + 1].target,
                    is_chief=task == 0,
                    hooks=hooks,
                    save_checkpoint_secs=None,
                    save_summaries_steps=None,
                    log_step_count_steps=None,
                )  # fmt: skip
            )
        graphs.append(graph)
    out = {}

    def train(task):
        with graphs[task].as_default():
            own = {v.op.name: v for v in tf.local_variables()}
            for n in range(STEPS):
                sessions[task].run(ops[task])
                got = sessions[task].run(own)
                out.update({f"{n}/{task}/{k}": np.asarray(v) for k, v in got.items()})

    threads = [threading.Thread(target=train, args=(task,)) for task in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(t.is_alive() for t in threads), "a worker did not finish within 60 s"
    with graphs[0].as_default():
        out.update(_values(tf, sessions[0], "end/"))
        for key in ("global", "local", "trainable"):
            variables = getattr(tf, key + "_variables")()
            out[f"collection/{key}"] = np.array(sorted(v.op.name for v in variables))
    for sess in sessions:
        sess.close()
    return out
