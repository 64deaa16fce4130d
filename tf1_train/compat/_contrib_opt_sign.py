"""``tf.contrib.opt``'s ``AddSignOptimizer`` and ``PowerSignOptimizer`` (Bello
et al. 2017, "Neural Optimizer Search with Reinforcement Learning") and the
sign decays of ``tensorflow.contrib.opt.python.training.sign_decay``, as TF
1.15 computed them (held to TensorFlow 1.15.5 by
tests/test_compat_contrib_opt.py).

Both keep a moving average ``m`` of the gradient and scale each element of
the gradient by how far its sign agrees with ``m``'s: AddSign by
``alpha + decay * sign(g) * sign(m)``, PowerSign by
``base ** (decay * sign(g) * sign(m))``. The dense update is TensorFlow's own
kernel (``ApplyAddSign``, ``ApplyPowerSign``), still in 2.21.

A sparse gradient (an embedding's ``IndexedSlices``) took a path of TF 1.15's
own, on the reference variables TF 1.15 made by default: ``m`` is decayed in
every row (the gradient made dense for it), and only the gradient's rows of
the variable move. TF 1.15 had no such path for resource variables (it
raised ``NotImplementedError``); TensorFlow 2 makes resource variables, so
here the same update is written for them too.

``sign_decay_fn`` is called with the global step given to
``apply_gradients``/``minimize``; the decays raise without one, as TF 1.15's did.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

import tensorflow as tf
from tensorflow.python.ops import gen_training_ops as training_ops
from tensorflow.python.ops import resource_variable_ops, state_ops

v1 = tf.compat.v1


def _cast(value, var):
    return tf.cast(value, var.dtype.base_dtype)


class _SignOptimizer(v1.train.Optimizer):
    """What AddSign and PowerSign share: the slot ``m``, the decay tensor and
    the sparse update, given the multiplier of the sign agreement."""

    def __init__(self, learning_rate, beta, sign_decay_fn, use_locking, name):
        super().__init__(use_locking, name)
        self._lr, self._beta, self._sign_decay_fn = learning_rate, beta, sign_decay_fn
        self._lr_t = self._beta_t = self._sign_decay_t = self._shape_t = None

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if self._sign_decay_fn is not None:
            self._sign_decay_t = tf.convert_to_tensor(
                self._sign_decay_fn(global_step), name="sign_decay"
            )
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name)

    def _prepare(self):
        self._lr_t = tf.convert_to_tensor(self._lr, name="learning_rate")
        self._beta_t = tf.convert_to_tensor(self._beta, name="beta")
        if self._sign_decay_fn is None:
            self._sign_decay_t = tf.convert_to_tensor(1.0, name="sign_decay")

    def _multiplier(self, decay, agreement):
        """The gradient's scale, given the decay and ``sign(g) * sign(m)``
        (``agreement``), multiplied in TF 1.15's order."""
        raise NotImplementedError

    # (dense kernel, resource kernel): the subclass's TensorFlow ops, which
    # take (var, m, lr, the subclass's alpha or log(base) as _shape_t,
    # sign_decay, beta, grad)
    _kernels = ()

    def _kernel_inputs(self, var):
        tensors = (self._lr_t, self._shape_t, self._sign_decay_t, self._beta_t)
        return [_cast(t, var) for t in tensors]

    def _apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        kernel = self._kernels[0]
        return kernel(var, m, *self._kernel_inputs(var), grad, use_locking=self._use_locking).op

    def _resource_apply_dense(self, grad, var):
        m = self.get_slot(var, "m").handle
        kernel = self._kernels[1]
        return kernel(var.handle, m, *self._kernel_inputs(var), grad, use_locking=self._use_locking)

    def _sparse(self, values, var, indices, assign, scatter_sub):
        """TF 1.15's sparse update: ``m`` decays in every row (the gradient
        made dense), the gradient's rows of the variable move."""
        lr_t, beta_t = _cast(self._lr_t, var), _cast(self._beta_t, var)
        m = self.get_slot(var, "m")
        dense = tf.IndexedSlices(values, indices, tf.shape(var, out_type=indices.dtype))
        m_t = assign(m, m * beta_t + tf.convert_to_tensor(dense) * (1 - beta_t))
        agreement = tf.gather(tf.sign(m_t), indices) * tf.sign(values)
        multiplier = self._multiplier(_cast(self._sign_decay_t, var), agreement)
        return tf.group(scatter_sub(var, indices, lr_t * multiplier * values), m_t)

    def _apply_sparse(self, grad, var):
        locking = self._use_locking
        return self._sparse(
            grad.values, var, grad.indices,
            lambda x, u: state_ops.assign(x, u, use_locking=locking),
            lambda x, i, u: state_ops.scatter_sub(x, i, u, use_locking=locking),
        )  # fmt: skip

    def _resource_apply_sparse(self, grad, var, indices):
        def assign(x, u):
            with tf.control_dependencies([x.assign(u)]):
                return x.read_value()

        return self._sparse(
            grad, var, indices, assign,
            lambda x, i, u: resource_variable_ops.resource_scatter_sub(x.handle, i, u),
        )  # fmt: skip


class AddSignOptimizer(_SignOptimizer):
    """``update = (alpha + decay * sign(g) * sign(m)) * g``."""

    _kernels = (training_ops.apply_add_sign, training_ops.resource_apply_add_sign)

    def __init__(self, learning_rate=0.1, alpha=1.0, beta=0.9,
                 sign_decay_fn: Optional[Callable] = None, use_locking=False,
                 name="AddSignOptimizer"):  # fmt: skip
        super().__init__(learning_rate, beta, sign_decay_fn, use_locking, name)
        self._shape_value = alpha

    def _prepare(self):
        super()._prepare()
        self._shape_t = tf.convert_to_tensor(self._shape_value, name="alpha")

    def _multiplier(self, decay, agreement):
        return tf.cast(self._shape_t, decay.dtype) + decay * agreement


class PowerSignOptimizer(_SignOptimizer):
    """``update = base ** (decay * sign(g) * sign(m)) * g``."""

    _kernels = (training_ops.apply_power_sign, training_ops.resource_apply_power_sign)

    def __init__(self, learning_rate=0.1, base=math.e, beta=0.9,
                 sign_decay_fn: Optional[Callable] = None, use_locking=False,
                 name="PowerSignOptimizer"):  # fmt: skip
        super().__init__(learning_rate, beta, sign_decay_fn, use_locking, name)
        self._shape_value = math.log(base)

    def _prepare(self):
        super()._prepare()
        self._shape_t = tf.convert_to_tensor(self._shape_value, name="logbase")

    def _multiplier(self, decay, agreement):
        # e ** (log(base) * decay * agreement): TF 1.15's way of writing base ** x
        logbase = tf.cast(self._shape_t, decay.dtype)
        return tf.pow(tf.cast(math.e, decay.dtype), logbase * decay * agreement)


def _needs_step(global_step, kind: str):
    if global_step is None:
        raise ValueError(f"global_step is required for {kind}.")


def get_linear_decay_fn(decay_steps) -> Callable:
    """``max(0, (decay_steps - step) / decay_steps)``, the step capped at ``decay_steps``."""

    def linear_decay_fn(global_step):
        _needs_step(global_step, "linear_decay")
        step = tf.minimum(global_step, decay_steps)
        remaining = tf.cast(decay_steps, tf.int32) - tf.cast(step, tf.int32)
        return tf.maximum(0.0, tf.cast(remaining, tf.float32) / tf.cast(decay_steps, tf.float32))

    return linear_decay_fn


def _half_cosine(fraction):
    return 0.5 * (1.0 + tf.cos(tf.constant(math.pi) * fraction))


def get_cosine_decay_fn(decay_steps, num_periods=0.5, zero_after=None) -> Callable:
    """``0.5 * (1 + cos(2 pi num_periods step / decay_steps))``; 0 from
    ``2 num_periods step / decay_steps >= 2 zero_after`` on if ``zero_after``."""

    def cosine_decay_fn(global_step):
        _needs_step(global_step, "cosine_decay")
        step = tf.minimum(global_step, decay_steps)
        done = tf.cast(step, tf.float32) / tf.cast(decay_steps, tf.float32)
        fraction = 2.0 * num_periods * done
        decayed = _half_cosine(fraction)
        if zero_after is not None:
            decayed = v1.where(tf.greater_equal(fraction, 2 * zero_after), 0.0, decayed)
        return decayed

    return cosine_decay_fn


def get_restart_decay_fn(decay_steps, num_periods=1, zero_after=None) -> Callable:
    """The cosine restarted ``num_periods`` times over ``decay_steps`` (SGDR's
    shape); 0 from ``num_periods step / decay_steps >= zero_after`` on."""

    def restart_decay_fn(global_step):
        _needs_step(global_step, "cosine_decay")  # TF 1.15's message
        step = tf.minimum(global_step, decay_steps)
        num = tf.math.floormod(num_periods * tf.cast(step, tf.float32), decay_steps)
        decayed = _half_cosine(num / tf.cast(decay_steps, tf.float32))
        if zero_after is not None:
            periods = tf.cast(num_periods * step, tf.float32) / tf.cast(decay_steps, tf.float32)
            decayed = v1.where(tf.greater_equal(periods, zero_after), 0.0, decayed)
        return decayed

    return restart_decay_fn
