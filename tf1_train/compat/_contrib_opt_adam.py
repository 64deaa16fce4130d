"""``tf.contrib.opt``'s Adam family on TensorFlow 2.21's v1 optimizers, as
TF 1.15 computed them (held to TensorFlow 1.15.5 by
tests/test_compat_contrib_opt.py).

Each was a small subclass of a core v1 optimizer, and the core ones and
their C++ kernels are still in TensorFlow 2.21:

- ``LazyAdamOptimizer``: Adam, except that a sparse gradient (an
  embedding's ``IndexedSlices``) updates only the rows it holds, their
  moments included; a dense gradient is Adam's. Which one a variable gets
  is the graph's choice: an embedding looked up inside a TF 2 loop gets a
  dense gradient (PORTING P6), and then every row moves.
- ``NadamOptimizer``: Adam's kernel with Nesterov momentum on.
- ``AdaMaxOptimizer``: the infinity-norm Adam (its own kernel), one
  ``beta1_power`` accumulator.
- ``DecoupledWeightDecayExtension``, ``extend_with_decoupled_weight_decay``,
  ``AdamWOptimizer``, ``MomentumWOptimizer``: before each update the
  variable loses ``weight_decay * var``. Not scaled by the learning rate:
  Keras's ``AdamW`` subtracts ``learning_rate * weight_decay * var``, so
  the same ``weight_decay`` there decays ``1/learning_rate`` times less.
  TF 1.15 raced that decay against the step's own reads of the variable (no
  dependency ordered them): a ``sess.run([loss, train_op])`` gave another
  loss sequence from run to run (4 of 5 runs of one program differed on TF
  1.15.5), the gradient taken before or after the decay. Here the decay
  waits for the gradient, so the gradient, the loss and the decay all see
  the step's starting weights, as in the paper's algorithm and in Keras; TF
  1.15.5 computes the same numbers when the gradient is computed in a run
  before the update (tests/contrib_opt_cases.py).
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import gen_training_ops as training_ops
from tensorflow.python.ops import resource_variable_ops, state_ops

v1 = tf.compat.v1


def _cast(value, var):
    return tf.cast(value, var.dtype.base_dtype)


def _scatter_add_ref(x, i, v, use_locking=False):
    return state_ops.scatter_add(x, i, v, use_locking=use_locking)


def _scatter_update_ref(x, i, v, use_locking=False):
    return state_ops.scatter_update(x, i, v, use_locking=use_locking)


def _scatter_resource(op):
    """A resource scatter that returns the variable's value after it, as TF 1.15's did."""

    def scatter(x, i, v, use_locking=False):
        with tf.control_dependencies([op(x.handle, i, v)]):
            return x.value()

    return scatter


_scatter_add_resource = _scatter_resource(resource_variable_ops.resource_scatter_add)
_scatter_update_resource = _scatter_resource(resource_variable_ops.resource_scatter_update)


class LazyAdamOptimizer(v1.train.AdamOptimizer):
    """Adam whose sparse updates touch only the rows of the gradient."""

    def _lazy(self, var, indices, values, scatter_update, scatter_sub):
        """The rows' new moments, then the rows' step (the optimizer has
        summed repeated indices before this)."""
        beta1_power, beta2_power = [_cast(p, var) for p in self._get_beta_accumulators()]
        lr_t, beta1_t, beta2_t, epsilon_t = [
            _cast(t, var) for t in (self._lr_t, self._beta1_t, self._beta2_t, self._epsilon_t)
        ]
        lr = lr_t * tf.sqrt(1 - beta2_power) / (1 - beta1_power)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_slice = beta1_t * tf.gather(m, indices) + (1 - beta1_t) * values
        v_slice = beta2_t * tf.gather(v, indices) + (1 - beta2_t) * tf.square(values)
        m_t, v_t = scatter_update(m, indices, m_slice), scatter_update(v, indices, v_slice)
        step = lr * m_slice / (tf.sqrt(v_slice) + epsilon_t)
        return tf.group(scatter_sub(var, indices, step), m_t, v_t)

    def _apply_sparse(self, grad, var):
        locking = self._use_locking
        return self._lazy(
            var, grad.indices, grad.values,
            lambda x, i, u: state_ops.scatter_update(x, i, u, use_locking=locking),
            lambda x, i, u: state_ops.scatter_sub(x, i, u, use_locking=locking),
        )  # fmt: skip

    def _resource_apply_sparse(self, grad, var, indices):
        return self._lazy(
            var, indices, grad,
            lambda x, i, u: resource_variable_ops.resource_scatter_update(x.handle, i, u),
            lambda x, i, u: resource_variable_ops.resource_scatter_sub(x.handle, i, u),
        )  # fmt: skip


class NadamOptimizer(v1.train.AdamOptimizer):
    """Adam with Nesterov momentum (Dozat, 2016)."""

    def _adam_inputs(self, var):
        beta1_power, beta2_power = self._get_beta_accumulators()
        return [
            _cast(t, var)
            for t in (beta1_power, beta2_power, self._lr_t, self._beta1_t, self._beta2_t,
                      self._epsilon_t)
        ]  # fmt: skip

    def _apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        return training_ops.apply_adam(
            var, m, v, *self._adam_inputs(var), grad,
            use_locking=self._use_locking, use_nesterov=True,
        ).op  # fmt: skip

    def _resource_apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        return training_ops.resource_apply_adam(
            var.handle, m.handle, v.handle, *self._adam_inputs(var), grad,
            use_locking=self._use_locking, use_nesterov=True,
        )  # fmt: skip

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        beta1_power, beta2_power, lr_t, beta1_t, beta2_t, epsilon_t = self._adam_inputs(var)
        lr = lr_t * tf.sqrt(1 - beta2_power) / (1 - beta1_power)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_scaled = grad * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with tf.control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled)
            m_bar = m_scaled + beta1_t * tf.gather(m_t, indices)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with tf.control_dependencies([v_t]):
            v_t = scatter_add(v, indices, (grad * grad) * (1 - beta2_t))
        v_sqrt = tf.sqrt(tf.gather(v_t, indices))
        var_update = scatter_add(var, indices, -lr * m_bar / (v_sqrt + epsilon_t))
        return tf.group(var_update, m_bar, v_t)


class AdaMaxOptimizer(v1.train.AdamOptimizer):
    """Adam under the infinity norm (Kingma and Ba, section 7.1)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="AdaMax"):  # fmt: skip
        super().__init__(learning_rate, beta1, beta2, epsilon, use_locking, name)

    def _get_beta_accumulators(self):
        graph = None if tf.executing_eagerly() else v1.get_default_graph()
        return self._get_non_slot_variable("beta1_power", graph=graph)

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(
            initial_value=self._beta1, name="beta1_power", colocate_with=first
        )
        for var in var_list:
            self._zeros_slot(var, "m", self._name)
            self._zeros_slot(var, "v", self._name)

    def _kernel_inputs(self, var):
        return [
            _cast(t, var)
            for t in (self._get_beta_accumulators(), self._lr_t, self._beta1_t, self._beta2_t,
                      self._epsilon_t)
        ]  # fmt: skip

    def _apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        return training_ops.apply_ada_max(
            var, m, v, *self._kernel_inputs(var), grad, use_locking=self._use_locking
        ).op

    def _resource_apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        return training_ops.resource_apply_ada_max(
            var.handle, m.handle, v.handle, *self._kernel_inputs(var), grad,
            use_locking=self._use_locking,
        )  # fmt: skip

    def _apply_sparse_shared(self, grad, var, indices, scatter_add, scatter_update):
        beta1_power, lr_t, beta1_t, beta2_t, epsilon_t = self._kernel_inputs(var)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_slice = tf.gather(m, indices) * beta1_t + grad * (1 - beta1_t)
        with tf.control_dependencies([m_slice]):
            m_t = scatter_update(m, indices, m_slice)
        v_slice = tf.maximum(tf.gather(v, indices) * beta2_t, tf.abs(grad))
        with tf.control_dependencies([v_slice]):
            v_t = scatter_update(v, indices, v_slice)
        step = -lr_t / (1 - beta1_power) * (m_slice / (v_slice + epsilon_t))
        with tf.control_dependencies([step]):
            var_update = scatter_add(var, indices, step)
        return tf.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, u: _scatter_add_ref(x, i, u, self._use_locking),
            lambda x, i, u: _scatter_update_ref(x, i, u, self._use_locking),
        )  # fmt: skip

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse_shared(
            grad, var, indices, _scatter_add_resource, _scatter_update_resource
        )

    def _finish(self, update_ops, name_scope):
        with tf.control_dependencies(update_ops):
            beta1_power = self._get_beta_accumulators()
            with v1.colocate_with(beta1_power):
                update = beta1_power.assign(
                    beta1_power * self._beta1_t, use_locking=self._use_locking
                )
        return tf.group(*update_ops + [update], name=name_scope)


class DecoupledWeightDecayExtension:
    """Mixed in before a v1 optimizer: each variable (of ``decay_var_list``,
    when given to ``minimize``/``apply_gradients``) first loses
    ``weight_decay * var``, then takes the optimizer's update."""

    def __init__(self, weight_decay, **kwargs):
        self._decay_var_list = None
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None,
                 gate_gradients=v1.train.Optimizer.GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None,
                 decay_var_list=None):  # fmt: skip
        self._decay_var_list = _decay_set(decay_var_list)
        return super().minimize(
            loss, global_step=global_step, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, name=name,
            grad_loss=grad_loss,
        )  # fmt: skip

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        self._decay_var_list = _decay_set(decay_var_list)
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _prepare(self):
        decay = self._weight_decay() if callable(self._weight_decay) else self._weight_decay
        self._weight_decay_tensor = tf.convert_to_tensor(decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var) -> bool:
        return not self._decay_var_list or any(var is d for d in self._decay_var_list)

    def _decay_weights_op(self, var, grad):
        """``var -= weight_decay * var``, once ``grad`` is computed (TF 1.15: unordered)."""
        if not self._decays(var):
            return tf.no_op()
        with tf.control_dependencies([grad]):
            return var.assign_sub(self._weight_decay * var, self._use_locking)

    def _decay_weights_sparse_op(self, var, indices, scatter_add, grad):
        if not self._decays(var):
            return tf.no_op()
        with tf.control_dependencies([grad, indices]):
            update = -self._weight_decay * tf.gather(var, indices)
            return scatter_add(var, indices, update, self._use_locking)

    def _apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay_weights_op(var, grad)]):
            return super()._apply_dense(grad, var)

    def _resource_apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay_weights_op(var, grad)]):
            return super()._resource_apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        decay = self._decay_weights_sparse_op(var, grad.indices, _scatter_add_ref, grad.values)
        with tf.control_dependencies([decay]):
            return super()._apply_sparse(grad, var)

    def _resource_apply_sparse(self, grad, var, indices):
        decay = self._decay_weights_sparse_op(var, indices, _scatter_add_resource, grad)
        with tf.control_dependencies([decay]):
            return super()._resource_apply_sparse(grad, var, indices)


def _decay_set(decay_var_list):
    """TF 1.15 kept a set; TF 2's variables do not hash, so a list (by identity)."""
    return list(decay_var_list) if decay_var_list else False


def extend_with_decoupled_weight_decay(base_optimizer):
    """A subclass of ``base_optimizer`` whose first argument is ``weight_decay``."""

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay, *args, **kwargs):
            super().__init__(weight_decay, *args, **kwargs)

    return OptimizerWithDecoupledWeightDecay


class MomentumWOptimizer(DecoupledWeightDecayExtension, v1.train.MomentumOptimizer):
    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False,
                 name="MomentumW", use_nesterov=False):  # fmt: skip
        super().__init__(
            weight_decay, learning_rate=learning_rate, momentum=momentum,
            use_locking=use_locking, name=name, use_nesterov=use_nesterov,
        )  # fmt: skip


class AdamWOptimizer(DecoupledWeightDecayExtension, v1.train.AdamOptimizer):
    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, use_locking=False, name="AdamW"):  # fmt: skip
        super().__init__(
            weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2,
            epsilon=epsilon, use_locking=use_locking, name=name,
        )  # fmt: skip
