"""``tf.contrib.opt``'s optimizer wrappers on TensorFlow 2.21's v1 optimizers,
as TF 1.15 built them (held to TensorFlow 1.15.5 by
tests/test_compat_contrib_opt.py).

- ``MovingAverageOptimizer``: the wrapped optimizer's update, then an
  ``ExponentialMovingAverage`` of the variables it updated
  (``<var>/ExponentialMovingAverage``); ``swapping_saver()`` writes each
  average under its variable's name and the variable under the average's,
  so an evaluator that restores the checkpoint plainly reads the averages.
  TensorFlow's object detection trainers (``use_moving_average``) and ENAS
  build their train ops through it.
- ``VariableClippingOptimizer``: the update, then each listed variable
  clipped to ``max_norm`` along its dimensions (only the rows a sparse
  gradient touched, unless dimension 0 is among them).
- ``MultitaskOptimizerWrapper``: the update skipped, slots included, for a
  variable whose gradient is all zeros (a task the batch did not train).
- ``clip_gradients_by_global_norm``: ``clip_by_global_norm`` whose norm
  leaves out the all-zero gradients.
- ``DropStaleGradientOptimizer``: for asynchronous parameter-server jobs,
  the update dropped when other workers moved the global step on by more
  than ``staleness`` while this one computed its gradients.
"""

from __future__ import annotations

import contextlib
import types

import tensorflow as tf
from tensorflow.python.ops.variables import PartitionedVariable
from tensorflow.python.training import saver as saver_lib
from tensorflow.python.training.saving import saveable_object_util

v1 = tf.compat.v1


class MovingAverageOptimizer(v1.train.Optimizer):
    """``opt``'s update followed by a moving average of what it updated."""

    def __init__(self, opt, average_decay=0.9999, num_updates=None, sequential_update=True):
        # TF 1.15 did not call Optimizer.__init__ either: everything is the wrapped one's.
        self._optimizer = opt
        self._ema = v1.train.ExponentialMovingAverage(average_decay, num_updates=num_updates)
        self._swapped_variable_name_map = None
        self._sequential_update = sequential_update

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        train_op = self._optimizer.apply_gradients(
            grads_and_vars, global_step=global_step, name=name
        )
        var_list = [v for g, v in grads_and_vars if g is not None]
        after = tf.control_dependencies([train_op]) if self._sequential_update else _nothing()
        with after:
            ma_op = self._ema.apply(var_list)
        self._swapped_variable_name_map = {}
        for v in var_list:
            average = self._ema.average(v).op.name
            self._swapped_variable_name_map[v.op.name] = average
            self._swapped_variable_name_map[average] = v.op.name
        return tf.group(train_op, ma_op, name="train_with_avg")

    def _find_swapped_variable(self, v_name_to_tensor, v_name, tensor):
        swapped = self._swapped_variable_name_map.get(v_name)
        if swapped is None:
            return tensor
        if swapped not in v_name_to_tensor:
            raise ValueError(
                f"Variable to swap {swapped} is not part of variables to save. "
                "This breaks MovingAverageOptimizer."
            )
        return v_name_to_tensor[swapped]

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs):
        """A Saver that writes each average under its variable's name (and back)."""
        if self._swapped_variable_name_map is None:
            raise RuntimeError(
                "Must call apply_gradients or minimize before creating the swapping_saver"
            )
        if var_list is None:
            var_list = v1.global_variables()
        if not isinstance(var_list, dict):
            var_list = saveable_object_util.op_list_to_dict(var_list)
        v_name_to_tensor = {}
        for key, value in var_list.items():
            if isinstance(value, (list, PartitionedVariable)):
                v_name_to_tensor.update({t.op.name: t for t in value})
            else:
                v_name_to_tensor[key] = value
        swapped = {}
        for key, value in var_list.items():
            if isinstance(value, list):
                swapped[key] = [
                    self._find_swapped_variable(v_name_to_tensor, t.op.name, t) for t in value
                ]
            else:
                swapped[key] = self._find_swapped_variable(v_name_to_tensor, key, value)
        return saver_lib.Saver(swapped, name=name, **kwargs)


@contextlib.contextmanager
def _nothing():
    yield


class _WrapsSlots:
    """The slots are the wrapped optimizer's (``self._opt``)."""

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)


class VariableClippingOptimizer(_WrapsSlots, v1.train.Optimizer):
    """``opt``'s update, then ``vars_to_clip_dims``' variables clipped to ``max_norm``."""

    def __init__(self, opt, vars_to_clip_dims, max_norm, use_locking=False,
                 colocate_clip_ops_with_vars=False, name="VariableClipping"):  # fmt: skip
        super().__init__(use_locking, name)
        self._opt = opt
        # by identity: TF 2's variables do not hash
        self._clip_dims = [(var, list(dims)) for var, dims in _items(vars_to_clip_dims)]
        self._max_norm = max_norm
        self._colocate_clip_ops_with_vars = colocate_clip_ops_with_vars

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        with v1.name_scope(name, self._name) as scope:
            update_op = self._opt.apply_gradients(grads_and_vars, global_step=global_step)
            clips = []
            with tf.control_dependencies([update_op]):
                for grad, var in grads_and_vars:
                    dims = self._dims_of(var)
                    if grad is None or dims is None:
                        continue
                    with tf.name_scope("clip_" + var.op.name):
                        sparse = isinstance(grad, tf.IndexedSlices)
                        clip = self._clip_sparse if sparse else self._clip_dense
                        clips.append(clip(grad, var, dims))
            return tf.group(*([update_op] + clips), name=scope)

    def _dims_of(self, var):
        return next((dims for v, dims in self._clip_dims if v is var), None)

    def _clip_dense(self, grad, var, dims):
        with self._maybe_colocate_with(var):
            value = var.read_value()
            delta = value - tf.clip_by_norm(value, self._max_norm, dims)
        with v1.colocate_with(var):
            return var.assign_sub(delta, use_locking=self._use_locking)

    def _clip_sparse(self, grad, var, dims):
        if 0 in dims:
            v1.logging.warning(
                "Clipping norm across dims %s for %s is inefficient when including sparse "
                "dimension 0.", dims, var.op.name,
            )  # fmt: skip
            return self._clip_dense(grad, var, dims)
        with v1.colocate_with(var):
            rows = tf.gather(var, grad.indices)
        with self._maybe_colocate_with(var):
            clipped = tf.clip_by_norm(rows, self._max_norm, dims)
            delta = tf.IndexedSlices(rows - clipped, grad.indices, grad.dense_shape)
        with v1.colocate_with(var):
            return var.scatter_sub(delta, use_locking=self._use_locking)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, var):
        if self._colocate_clip_ops_with_vars:
            with v1.colocate_with(var):
                yield
        else:
            yield


def _items(mapping):
    return mapping.items() if isinstance(mapping, dict) else mapping


def _is_all_zeros(grad):
    return tf.equal(tf.math.count_nonzero(grad), 0)


def _skipping_zeros(fn):
    """``fn(grad, ...)`` run only when ``grad`` has a nonzero element."""

    def wrapper(self, grad, *args, **kwargs):
        def update():
            with tf.control_dependencies([fn(grad, *args, **kwargs)]):
                return tf.no_op()

        return tf.cond(_is_all_zeros(grad), tf.no_op, update)

    return wrapper


class MultitaskOptimizerWrapper:
    """``opt`` whose dense and sparse updates skip an all-zero gradient."""

    def __init__(self, opt):
        if not isinstance(opt, v1.train.Optimizer):
            raise TypeError("Supplied optimizer must be an instance of tf.train.Optimizer")
        self._opt = opt
        for name in ("_apply_dense", "_resource_apply_dense", "_apply_sparse",
                     "_resource_apply_sparse"):  # fmt: skip
            wrapped = _skipping_zeros(getattr(opt, name))
            setattr(opt, name, types.MethodType(wrapped, opt))

    def __getattr__(self, name):
        return getattr(self._opt, name)


def clip_gradients_by_global_norm(gradients_variables, clip_norm=20.0):
    """``clip_by_global_norm`` over the gradients, the all-zero ones out of the norm."""
    gradients, variables = zip(*gradients_variables)

    def counted(grad):
        if grad is None:
            return grad
        return tf.cond(_is_all_zeros(grad), lambda: tf.zeros([], grad.dtype), lambda: grad)

    norm = tf.linalg.global_norm([counted(g) for g in gradients])
    gradients, _ = tf.clip_by_global_norm(gradients, clip_norm, use_norm=norm)
    return list(zip(gradients, variables)), norm


class DropStaleGradientOptimizer(_WrapsSlots, v1.train.Optimizer):
    """``opt``'s update, skipped when the global step moved on by more than
    ``staleness`` between this worker's read of it (before its gradients)
    and the update; the skips are counted in ``stale_counter``."""

    def __init__(self, opt, staleness, use_locking=False, name="DropStaleGradient"):
        super().__init__(use_locking, name)
        self._opt, self._staleness = opt, staleness

    def compute_gradients(self, loss, *args, **kwargs):
        with v1.colocate_with(loss):
            self._local_step = v1.train.get_global_step() + 0
        with tf.control_dependencies([self._local_step]):
            return self._opt.compute_gradients(tf.identity(loss), *args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        with v1.colocate_with(global_step):
            stale_counter = v1.get_variable(
                "stale_counter", [], initializer=v1.zeros_initializer(), trainable=False
            )

        def accept():
            update = self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name)
            with tf.control_dependencies([update]):
                return tf.identity(0.0)

        grads = [g for g, _ in grads_and_vars if g is not None]
        grads = [g if isinstance(g, tf.Tensor) else g.op for g in grads]
        with tf.control_dependencies(grads), v1.colocate_with(global_step):
            staleness = tf.reshape(global_step - self._local_step, [])
        dropped = v1.cond(staleness <= self._staleness, accept, lambda: tf.identity(1.0))
        counted = stale_counter.assign_add(dropped)
        v1.summary.scalar(
            "Gradient staleness percentage", stale_counter / tf.cast(global_step + 1, tf.float32)
        )
        return counted
