"""``tf.contrib.opt``'s elastic averaging SGD (Zhang, Choromanska and LeCun,
2015) for between-graph ps/worker programs, as TF 1.15 computed it:
``ElasticAverageCustomGetter`` and ``ElasticAverageOptimizer``.

The getter gives each worker its own copy of every trainable variable (on the
worker, in LOCAL_VARIABLES), and makes a center copy on the ps
(``global_center_variable/<name>``) and the worker's last view of it
(``local_center_variable/<name>``). The optimizer trains the worker's copy
with ``rho`` times the squared distance to its last view of the center in the
loss; every ``communication_period`` of its steps it reads the center, moves
its copy towards it by ``moving_rate`` times their difference and the center
towards it by as much, and counts one global step. The wrapped optimizer's
slots are the worker's own (moved to LOCAL_VARIABLES).

TensorFlow 2's variables are not hashed by identity in every context, so the
maps are keyed by ``variable.ref()``; everything else is TF 1.15's.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.training.saving import saveable_object_util

v1 = tf.compat.v1
GLOBAL_VARIABLE_NAME = "global_center_variable"
LOCAL_VARIABLE_NAME = "local_center_variable"
_LOCAL = v1.GraphKeys.LOCAL_VARIABLES


class ElasticAverageCustomGetter:
    """A worker's copy of each trainable variable, and its two center copies."""

    def __init__(self, worker_device):
        self._worker_device = worker_device
        self._local_map = {}  # worker copy's ref() -> its local center copy
        self._global_map = {}  # worker copy's ref() -> the center on the ps

    def __call__(self, getter, name, trainable, collections, *args, **kwargs):
        if not trainable:
            return untrained(getter, self._worker_device, name, collections, *args, **kwargs)
        with tf.device(self._worker_device):
            local = getter(name, *args, trainable=True, collections=[_LOCAL], **kwargs)
        if kwargs["reuse"] == True:  # noqa: E712  (TF 1.15's test: AUTO_REUSE looks the centers up)
            return local
        center = getter(f"{GLOBAL_VARIABLE_NAME}/{name}", *args, trainable=False,
                        collections=[v1.GraphKeys.GLOBAL_VARIABLES], **kwargs)  # fmt: skip
        with tf.device(self._worker_device):
            view = getter(f"{LOCAL_VARIABLE_NAME}/{name}", *args, trainable=False,
                          collections=[_LOCAL], **kwargs)  # fmt: skip
        if kwargs["partitioner"] is None:
            pairs = [(local, view, center)]
        else:
            pairs = zip(list(local), list(view), list(center))
        for var, local_center, global_center in pairs:
            self._local_map[var.ref()] = local_center
            self._global_map[var.ref()] = global_center
        return local


def untrained(getter, worker_device, name, collections, *args, **kwargs):
    """A getter's variable that is not trained (the averaging getters'
    common case): as asked, on the worker if it is a local variable."""
    kwargs["trainable"], kwargs["collections"] = False, collections
    if _LOCAL in (collections or ()):
        with tf.device(worker_device):
            return getter(name, *args, **kwargs)
    return getter(name, *args, **kwargs)


def _to_local(new_names) -> None:
    """Move the global variables named ``new_names`` (the wrapped optimizer's
    slots) to LOCAL_VARIABLES, keeping the others' order."""
    graph = v1.get_default_graph()
    global_variables = graph.get_collection_ref(v1.GraphKeys.GLOBAL_VARIABLES)
    kept = []
    for var in global_variables:
        if var.op.name in new_names:
            v1.add_to_collection(_LOCAL, var)
        else:
            kept.append(var)
    global_variables[:] = kept


class ElasticAverageOptimizer(v1.train.Optimizer):
    """Trains a worker's copy and exchanges with the center every
    ``communication_period`` steps (asynchronously: no worker waits)."""

    BETA = 0.9

    def __init__(self, opt, num_worker, ea_custom_getter, communication_period=10,
                 moving_rate=None, rho=None, use_locking=True, synchronous=False,
                 name="ElasticAverageOptimizer"):  # fmt: skip
        super().__init__(use_locking, name)
        self._opt = opt
        self._num_worker = num_worker
        self._period = communication_period
        self._local_map = ea_custom_getter._local_map
        self._global_map = ea_custom_getter._global_map
        self._synchronous = synchronous
        if moving_rate is None:
            moving_rate = self.BETA / communication_period / num_worker
        self._moving_rate = moving_rate
        self._rho = self._moving_rate / self._opt._learning_rate if rho is None else rho
        self._local_step = v1.get_variable(
            initializer=0, trainable=False, collections=[_LOCAL], name="local_step"
        )
        self._opt._prepare()

    def compute_gradients(self, loss, var_list=None, gate_gradients=v1.train.Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):  # fmt: skip
        """The wrapped optimizer's gradients of ``loss + rho * sum(l2_loss(v - center view))``."""
        if not var_list:
            var_list = v1.trainable_variables()
        views = [self._local_map[var.ref()] for var in var_list]
        # TF 1.15 paired every trainable variable with var_list's views, in order
        differences = [tf.subtract(v, view) for v, view in zip(v1.trainable_variables(), views)]
        distance = self._rho * tf.add_n([tf.nn.l2_loss(d) for d in differences])
        return self._opt.compute_gradients(loss + distance, var_list, gate_gradients,
                                           aggregation_method, colocate_gradients_with_ops,
                                           grad_loss)  # fmt: skip

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped update, then, every ``communication_period``-th local
        step, the elastic exchange with the center (and one global step)."""
        before = {v.op.name for v in v1.global_variables()}
        apply_updates = self._opt.apply_gradients(grads_and_vars)
        _to_local({v.op.name for v in v1.global_variables()} - before)
        with tf.control_dependencies([apply_updates]):
            local_update = v1.assign_add(self._local_step, 1, name="local_step_update").op
        trained = [v for g, v in grads_and_vars if g is not None]

        def exchange():
            return self._exchange(trained, global_step)

        with tf.control_dependencies([local_update]):
            due = tf.equal(tf.math.floormod(self._local_step, self._period), 0)
            return v1.cond(due, exchange, tf.no_op)

    def _exchange(self, trained, global_step):
        centers = [self._global_map[v.ref()] for v in trained]
        views = [self._local_map[v.ref()] for v in trained]
        read = [view.assign(center) for view, center in zip(views, centers)]
        updates, differences = [], []
        with tf.control_dependencies(read):
            for var, view in zip(trained, views):
                with tf.device(var.device):
                    differences.append(tf.subtract(var, view))
            for var, difference in zip(trained, differences):
                with tf.device(var.device):
                    updates.append(v1.assign_sub(var, self._moving_rate * difference))
            for center, difference in zip(centers, differences):
                with tf.device(center.device):
                    updates.append(v1.assign_add(center, self._moving_rate * difference))
            if global_step is not None:  # TF 1.15: `if global_step`, true for a variable
                with v1.colocate_with(global_step):
                    updates.append(v1.assign_add(global_step, 1))
        return tf.group(*updates)

    def get_init_op(self, task_index):
        """Set each worker copy and center view to the center; with
        ``synchronous``, then wait for every other worker to do the same."""
        trained = v1.trainable_variables()
        centers = [self._global_map[v.ref()] for v in trained]
        views = [self._local_map[v.ref()] for v in trained]
        if not (trained and centers and views):
            raise ValueError(
                "The lists of local_variables, global_center_variables, "
                "local_center_variables should not be empty  "
            )
        assigns = []
        for var, center, view in zip(trained, centers, views):
            assigns += [v1.assign(var, center), v1.assign(view, center)]
        init_op = tf.group(*assigns)
        if not self._synchronous:
            return init_op
        # TF 1.15 left the queues unplaced, and its placer put them on the cluster's
        # first device, the same for every worker (the ps); TF 2.21's puts them on
        # each session's own task, where no other worker's token arrives
        with tf.device(min(center.device for center in centers)):
            return self._barrier(init_op, task_index)

    def _barrier(self, after, task_index):
        """Each worker enqueues a token on every other worker's queue (shared
        by name across the cluster), then takes one from each of them."""
        queues = [
            tf.queue.FIFOQueue(self._num_worker, [tf.bool], shapes=[[]],
                               shared_name=f"variable_init_sync_queue{i}")
            for i in range(self._num_worker)
        ]  # fmt: skip
        token = tf.constant(False)
        with tf.control_dependencies([after]):
            ops = [
                tf.no_op() if i == task_index else q.enqueue(token) for i, q in enumerate(queues)
            ]
        ops.append(queues[task_index].dequeue_many(len(queues) - 1))
        return tf.group(*ops)

    def make_session_run_hook(self, is_chief, task_index):
        """The hook that runs ``get_init_op`` once the session exists."""
        return _ElasticAverageOptimizerHook(self, is_chief, task_index)

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs):
        """A Saver that writes each center under its worker copy's name: the
        trained model for evaluation and serving."""
        if not self._global_map:
            raise RuntimeError(
                "global_center_variable is empty, please make sure this is called after "
                "model created and ElasticAverageCustomGetter is used when declaring you model"
            )
        if var_list is None:
            var_list = v1.trainable_variables()
        if not isinstance(var_list, dict):
            var_list = saveable_object_util.op_list_to_dict(var_list)
        swapped = {}
        for key, var in var_list.items():
            if isinstance(var, list):  # a partitioned variable
                swapped[key] = [self._global_map.get(part.ref(), part) for part in var]
                continue
            same = [t for t in v1.trainable_variables() if t.op.name == _op_name(var)]
            swapped[key] = self._global_map.get(same[0].ref(), var) if same else var
        return v1.train.Saver(swapped, name=name, **kwargs)


def _op_name(var) -> str:
    """The variable's op name; TF 2's op_list_to_dict gives a resource
    variable as its read tensor, named after the read."""
    op = var.op
    return op.inputs[0].op.name if op.type == "ReadVariableOp" else op.name


class _ElasticAverageOptimizerHook(v1.train.SessionRunHook):
    def __init__(self, ea_optimizer, is_chief, task_index):
        self._ea_optimizer = ea_optimizer
        self._is_chief = is_chief
        self._task_index = task_index

    def begin(self):
        self._variable_init_op = self._ea_optimizer.get_init_op(self._task_index)

    def after_create_session(self, session, coord):
        session.run(self._variable_init_op)
