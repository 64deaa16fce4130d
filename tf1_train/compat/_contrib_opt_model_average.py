"""``tf.contrib.opt``'s model averaging for between-graph ps/worker programs,
as TF 1.15 computed it: ``ModelAverageCustomGetter`` and
``ModelAverageOptimizer``.

Each worker trains its own copy of every trainable variable (on the worker,
in LOCAL_VARIABLES); a global copy on the ps (``global_center_variable/<name>``)
starts from it. Every ``interval_steps`` of its steps each worker puts its
copy in an accumulator on the ps; the chief takes the mean of all
``num_worker`` of them, assigns it to the global copy, counts one global step
and releases the others through a token queue; then every worker sets its
copy to the global one. The workers wait for each other there: synchronous.

Two changes from TF 1.15's code, neither to a number: the accumulators and
the token queue are made outside the conditional exchange (TF 1.15 made them
inside its ``cond``, whose TF 2 branch is a function: the chief's
``set_global_step`` ops could not use them from outside), and a worker's copy
goes to its accumulator as its value (TF 1.15 passed the reference variable
itself, which TF 2's resource variables do not have).
"""

from __future__ import annotations

import tensorflow as tf

from tf1_train.compat._contrib_opt_elastic import untrained

v1 = tf.compat.v1
GLOBAL_VARIABLE_NAME = "global_center_variable"
_LOCAL = v1.GraphKeys.LOCAL_VARIABLES


class ModelAverageCustomGetter:
    """A worker's copy of each trainable variable, and a global copy."""

    def __init__(self, worker_device):
        self._worker_device = worker_device
        self._local_2_global = {}  # worker copy's ref() -> the global copy

    def __call__(self, getter, name, trainable, collections, *args, **kwargs):
        if not trainable:
            return untrained(getter, self._worker_device, name, collections, *args, **kwargs)
        with tf.device(self._worker_device):
            local = getter(name, *args, trainable=True, collections=[_LOCAL], **kwargs)
        self._local_2_global[local.ref()] = v1.Variable(
            name=f"{GLOBAL_VARIABLE_NAME}/{name}",
            initial_value=local.initialized_value(),
            trainable=False,
            collections=[v1.GraphKeys.GLOBAL_VARIABLES],
        )
        return local


class ModelAverageOptimizer(v1.train.Optimizer):
    """Trains a worker's copy and, every ``interval_steps`` steps, replaces
    every worker's copy by the mean of all of them."""

    def __init__(self, opt, num_worker, is_chief, ma_custom_getter, interval_steps=100,
                 use_locking=True, name="ModelAverageOptimizer"):  # fmt: skip
        super().__init__(use_locking, name)
        self._opt = opt
        self._num_worker = num_worker
        self._is_chief = is_chief
        self._local_2_global = ma_custom_getter._local_2_global
        self._interval_steps = interval_steps
        self._accumulator_list = []
        self._chief_init_op = None
        self._local_step = v1.get_variable(
            initializer=0, trainable=False, collections=[_LOCAL], name="local_step"
        )
        self._opt._prepare()

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def _local_vars_update(self, var_list):
        """Set each worker copy in ``var_list`` to its global copy."""
        if not var_list:
            raise ValueError("The list of local_variables should not be empty")
        updates = []
        for var in var_list:
            with tf.device(var.device):
                updates.append(v1.assign(var, self._local_2_global[var.ref()].read_value()))
        return tf.group(*updates)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped update, then, every ``interval_steps``-th local step,
        the averaging (the chief also counts one global step)."""
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required")
        apply_updates = self._opt.apply_gradients(grads_and_vars)
        with tf.control_dependencies([apply_updates]):
            local_update = v1.assign_add(self._local_step, 1, name="local_step_update").op
        trained = [v for g, v in grads_and_vars if g is not None]
        centers = [self._local_2_global[v.ref()] for v in trained]
        with v1.colocate_with(global_step):
            queue = tf.queue.FIFOQueue(-1, [tf.bool], shapes=[[]], shared_name="sync_queue")
        accumulators = []
        with v1.name_scope(None, f"{self._name}/global"):
            for var, center in zip(trained, centers):
                with tf.device(center.device):
                    accumulators.append(
                        v1.ConditionalAccumulator(
                            var.dtype,
                            shape=var.get_shape(),
                            shared_name=center.name + "/var_accum",
                        )  # fmt: skip
                    )
                self._accumulator_list.append((accumulators[-1], center.device))

        def average():
            return self._average(trained, centers, accumulators, queue, global_step)

        with tf.control_dependencies([local_update]):
            due = tf.equal(tf.math.floormod(self._local_step, self._interval_steps), 0)
            exchange = v1.cond(due, average, tf.no_op)
        inits = []
        for accumulator, device in self._accumulator_list:
            with tf.device(device):
                inits.append(accumulator.set_global_step(global_step, name="SetGlobalStep"))
        self._chief_init_op = tf.group(*inits)
        return exchange

    def _average(self, trained, centers, accumulators, queue, global_step):
        applied = [
            accumulator.apply_grad(_current(var), local_step=global_step)
            for var, accumulator in zip(trained, accumulators)
        ]
        if self._is_chief:
            updates = []
            with tf.control_dependencies(applied):
                for center, accumulator in zip(centers, accumulators):
                    with tf.device(center.device):
                        updates.append(v1.assign(center, accumulator.take_grad(self._num_worker)))
                with tf.device(global_step.device):
                    updates.append(v1.assign_add(global_step, 1))
            with tf.control_dependencies(updates), tf.device(global_step.device):
                tokens = tf.fill([self._num_worker - 1], tf.constant(False))
                released = queue.enqueue_many(tokens)
        else:
            with tf.control_dependencies(applied), tf.device(global_step.device):
                released = queue.dequeue()
        with tf.control_dependencies([released]):
            return self._local_vars_update(trained)

    def get_init_op(self):
        """Set every worker copy to its global copy."""
        return self._local_vars_update(v1.trainable_variables())

    def make_session_run_hook(self):
        """TF 1.15's hook: it builds the initializing ops and runs none of them."""
        return _ModelAverageOptimizerHook(self, self._is_chief)


def _current(var):
    """What a worker puts in its accumulator: TF 1.15 passed the reference
    variable itself (its ``_ref()``); a resource variable has its value."""
    return var._ref() if var.dtype._is_ref_dtype else var.value()


class _ModelAverageOptimizerHook(v1.train.SessionRunHook):
    """As in TF 1.15, ``begin`` builds the ops (the variables' initializers,
    the chief's ``set_global_step``s, ``get_init_op``) and nothing runs them."""

    def __init__(self, ma_optimizer, is_chief):
        self._ma_optimizer = ma_optimizer
        self._is_chief = is_chief

    def begin(self):
        self._local_init_op = v1.local_variables_initializer()
        self._global_init_op = None
        if self._is_chief:
            self._global_init_op = v1.global_variables_initializer()
            self._chief_init_op = self._ma_optimizer._chief_init_op
        self._variable_init_op = self._ma_optimizer.get_init_op()
