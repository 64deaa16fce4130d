"""``tf.contrib.opt``'s optimizers that were a core kernel fed another way, on
TensorFlow 2.21's v1 optimizers, as TF 1.15 computed them (held to
TensorFlow 1.15.5 by tests/test_compat_contrib_opt.py):

- ``LARSOptimizer`` (You et al. 2017, layer-wise adaptive rate scaling, for
  large-batch ResNet training): momentum whose step for each variable is
  scaled by its trust ratio ``eeta * |w| / (|g| + weight_decay * |w| +
  epsilon)``, with ``weight_decay * w`` added to the gradient. A variable
  whose name contains a string of ``skip_list`` (``'bias'``, the batch
  norms) gets neither. A sparse gradient gets plain momentum at the base
  rate: TF 1.15 scaled dense gradients only.
- ``RegAdagradOptimizer``: Adagrad; under ``with opt.avoid_updating_slots():``
  the updates built leave the accumulators alone (a regularizer's own
  update, so that it does not slow the loss's learning rate).
- ``AdamGSOptimizer``, ``LazyAdamGSOptimizer``: Adam and LazyAdam whose
  ``beta ** t`` come from the global step given to the constructor
  (``t = step + 1``) instead of accumulators of their own, so every worker
  of a job agrees on them.
"""

from __future__ import annotations

import contextlib

import tensorflow as tf
from tensorflow.python.ops import gen_training_ops as training_ops

from tf1_train.compat._contrib_opt_adam import LazyAdamOptimizer

v1 = tf.compat.v1


def _cast(value, var):
    return tf.cast(value, var.dtype.base_dtype)


class LARSOptimizer(v1.train.Optimizer):
    """Momentum with each variable's step scaled by its trust ratio."""

    def __init__(self, learning_rate, momentum=0.9, weight_decay=0.0001, eeta=0.001, epsilon=0.0,
                 name="LARSOptimizer", skip_list=None, use_nesterov=False):  # fmt: skip
        if momentum < 0.0:
            raise ValueError(f"momentum should be positive: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"weight_decay should be positive: {weight_decay}")
        super().__init__(use_locking=False, name=name)
        self._learning_rate, self._momentum = learning_rate, momentum
        self._weight_decay, self._eeta, self._epsilon = weight_decay, eeta, epsilon
        self._name, self._skip_list, self._use_nesterov = name, skip_list, use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def compute_lr(self, grad, var):
        """(the variable's rate, its gradient with the weight decay) -- TF 1.15's public method."""
        if self._skip_list is not None and any(s in var.name for s in self._skip_list):
            return self._learning_rate, grad
        w_norm, g_norm = tf.norm(var, ord=2), tf.norm(grad, ord=2)
        ratio = self._eeta * w_norm / (g_norm + self._weight_decay * w_norm + self._epsilon)
        trust = v1.where(tf.greater(w_norm, 0), v1.where(tf.greater(g_norm, 0), ratio, 1.0), 1.0)
        return self._learning_rate * trust, grad + self._weight_decay * var

    def _apply_dense(self, grad, var):
        rate, grad = self.compute_lr(grad, var)
        return training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), _cast(1.0, var), grad * rate,
            self._momentum, use_locking=False, use_nesterov=self._use_nesterov,
        )  # fmt: skip

    def _resource_apply_dense(self, grad, var):
        rate, grad = self.compute_lr(grad, var)
        return training_ops.resource_apply_momentum(
            var.handle, self.get_slot(var, "momentum").handle, _cast(1.0, var), grad * rate,
            self._momentum, use_locking=False, use_nesterov=self._use_nesterov,
        )  # fmt: skip

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_momentum(
            var, self.get_slot(var, "momentum"), _cast(self._learning_rate_tensor, var),
            grad.values, grad.indices, _cast(self._momentum_tensor, var),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov,
        ).op  # fmt: skip

    def _resource_apply_sparse(self, grad, var, indices):
        return training_ops.resource_sparse_apply_momentum(
            var.handle, self.get_slot(var, "momentum").handle,
            tf.cast(self._learning_rate_tensor, grad.dtype), grad, indices,
            tf.cast(self._momentum_tensor, grad.dtype),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov,
        )  # fmt: skip

    def _prepare(self):
        rate, momentum = self._learning_rate, self._momentum
        self._learning_rate_tensor = tf.convert_to_tensor(
            rate() if callable(rate) else rate, name="learning_rate"
        )
        self._momentum_tensor = tf.convert_to_tensor(
            momentum() if callable(momentum) else momentum, name="momentum"
        )


class RegAdagradOptimizer(v1.train.AdagradOptimizer):
    """Adagrad whose updates can leave the accumulators alone."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="RegAdagrad"):  # fmt: skip
        super().__init__(learning_rate, initial_accumulator_value, use_locking, name)
        self._should_update_slots = True

    @contextlib.contextmanager
    def avoid_updating_slots(self):
        """The updates built inside do not change the accumulators."""
        old, self._should_update_slots = self._should_update_slots, False
        try:
            yield
        finally:
            self._should_update_slots = old

    def _kwargs(self):
        return {"use_locking": self._use_locking, "update_slots": self._should_update_slots}

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        rate = _cast(self._learning_rate_tensor, var)
        return training_ops.apply_adagrad(var, acc, rate, grad, **self._kwargs())

    def _resource_apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        rate = tf.cast(self._learning_rate_tensor, grad.dtype.base_dtype)
        return training_ops.resource_apply_adagrad(
            var.handle, acc.handle, rate, grad, **self._kwargs()
        )

    def _apply_sparse(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        rate = _cast(self._learning_rate_tensor, var)
        return training_ops.sparse_apply_adagrad(
            var, acc, rate, grad.values, grad.indices, **self._kwargs()
        )

    def _resource_apply_sparse(self, grad, var, indices):
        acc = self.get_slot(var, "accumulator")
        rate = tf.cast(self._learning_rate_tensor, grad.dtype)
        return training_ops.resource_sparse_apply_adagrad(
            var.handle, acc.handle, rate, grad, indices, **self._kwargs()
        )


class AdamGSOptimizer(v1.train.AdamOptimizer):
    """Adam with ``beta1 ** t`` and ``beta2 ** t`` from the global step.

    TF 1.15's class was Adam's code copied with that change; here it is
    Adam's own updates with the powers replaced (and no accumulators made
    or advanced)."""

    def __init__(self, global_step=0, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, use_locking=False, name="Adam"):  # fmt: skip
        super().__init__(learning_rate, beta1, beta2, epsilon, use_locking, name)
        self._global_step, self._global_step_on_worker = global_step, None

    def _get_beta_accumulators(self):
        t = self._global_step_on_worker
        return tf.pow(self._beta1_t, t), tf.pow(self._beta2_t, t)

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        super()._prepare()
        # each worker reads the global step once a step (TF 1.15: so as not to
        # load the parameter server holding it)
        step = tf.identity(self._global_step) + 1
        self._global_step_on_worker = tf.cast(step, tf.float32)

    def _finish(self, update_ops, name_scope):
        return tf.group(*update_ops, name=name_scope)


class LazyAdamGSOptimizer(AdamGSOptimizer):
    """AdamGS whose sparse updates touch only the gradient's rows (LazyAdam's)."""

    _lazy = LazyAdamOptimizer._lazy
    _apply_sparse = LazyAdamOptimizer._apply_sparse
    _resource_apply_sparse = LazyAdamOptimizer._resource_apply_sparse
