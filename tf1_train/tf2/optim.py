"""The tf.compat.v1 optimizers and schedules, rewritten as TF2 modules.

Keras optimizers differ from the v1 ones in ways that break a numerical
comparison (Keras Adam's epsilon is 1e-7, v1's 1e-8; Keras momentum folds the
learning rate into the velocity; v1 RMSProp starts its mean square at 1, not
0). These classes keep the v1 slot names (``w/Momentum``, ``w/Adam``,
``w/Adam_1``, ``beta1_power``, ...), so a TF1 checkpoint's optimizer state
continues here, and apply updates with the same fused training kernels the v1
optimizers (and Keras 2's) call, through ``tf.raw_ops``. Written as separate
ops (``var.assign_sub(lr * grad)``), an update is open to Grappler's
rewrites inside a ``tf.function``: on ResNet-20 one gamma element came out one
float step off after the first step, and plain SGD at that learning rate
turned it into a 0.3 loss difference by step 15. A fused kernel is one op;
nothing rewrites it.

Updates run in cross-replica context through ``strategy.extended.update``:
each device updates its own copy of a variable and of its slots with the
same all-reduced gradient, as replicated mode does in the TF1 graph.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import tensorflow as tf

from tf1_train.config import OptimizerConfig


def learning_rate(cfg: OptimizerConfig, step: tf.Tensor) -> tf.Tensor:
    """Same values as tf1_train.optim.learning_rate at every step: the
    schedule after ``lr_warmup_steps`` of linear warmup."""
    lr = _schedule(cfg, step)
    if cfg.lr_warmup_steps <= 0:
        return lr
    warm = cfg.learning_rate * (tf.cast(step, tf.float32) / float(cfg.lr_warmup_steps))
    return tf.where(step < cfg.lr_warmup_steps, warm, lr)


def _schedule(cfg: OptimizerConfig, step: tf.Tensor) -> tf.Tensor:
    lr = tf.constant(cfg.learning_rate, tf.float32)
    if cfg.lr_schedule == "piecewise":
        # v1 piecewise_constant: value i applies while step <= boundary i.
        passed = tf.reduce_sum(tf.cast(step > tf.constant(cfg.lr_boundaries, tf.int64), tf.int32))
        return lr * tf.pow(
            tf.constant(cfg.lr_decay_factor, tf.float32), tf.cast(passed, tf.float32)
        )
    if cfg.lr_schedule == "exponential":
        exponent = tf.cast(step, tf.float32) / float(cfg.lr_decay_steps)
        if cfg.lr_staircase:
            exponent = tf.floor(exponent)
        return lr * tf.pow(tf.constant(cfg.lr_decay_factor, tf.float32), exponent)
    if cfg.lr_schedule == "polynomial":
        # v1 polynomial_decay, cycle=False: the step stops at decay_steps.
        end = tf.constant(cfg.lr_end, tf.float32)
        steps = tf.constant(float(cfg.lr_decay_steps), tf.float32)
        p = tf.minimum(tf.cast(step, tf.float32), steps) / steps
        return (lr - end) * tf.pow(1 - p, tf.constant(cfg.lr_power, tf.float32)) + end
    return lr


class Optimizer(tf.Module):
    """Base: creates slots next to each variable, applies one update per step."""

    slot_names: Tuple[str, ...] = ()

    def __init__(self, cfg: OptimizerConfig, variables: Dict[str, tf.Variable], name: str):
        super().__init__(name=name)
        self.cfg = cfg
        self.step = tf.Variable(0, dtype=tf.int64, name="global_step", trainable=False)
        self.slots: Dict[str, List[tf.Variable]] = {}
        for var_name, var in variables.items():
            self.slots[var_name] = [
                tf.Variable(self.slot_initial(var, s), name=f"{var_name}/{s}", trainable=False)
                for s in self.slot_names
            ]
        self.extra: Dict[str, tf.Variable] = {}

    def slot_initial(self, var: tf.Variable, slot: str) -> tf.Tensor:
        del slot
        return tf.zeros_like(var)

    def state_by_name(self) -> Dict[str, tf.Variable]:
        """Slots, non-slot state and global_step, by TF1 checkpoint name."""
        out = {"global_step": self.step, **self.extra}
        for var_name, slots in self.slots.items():
            for s, slot in zip(self.slot_names, slots):
                out[f"{var_name}/{s}"] = slot
        return out

    def apply(
        self,
        strategy: tf.distribute.Strategy,
        grads_and_names: Sequence[Tuple[tf.Tensor, str]],
        variables: Dict[str, tf.Variable],
    ) -> None:
        """Cross-replica context: applies all-reduced gradients, then step += 1."""
        lr = learning_rate(self.cfg, self.step)
        for grad, name in grads_and_names:
            strategy.extended.update(
                variables[name], self._update, args=(grad, lr, *self.slots[name])
            )
        self._finish(strategy, lr)
        strategy.extended.update(self.step, lambda s: s.assign_add(1))

    def _update(self, var, grad, lr, *slots):
        raise NotImplementedError

    def _finish(self, strategy, lr) -> None:
        """Per-step state that is not per variable (Adam's beta powers)."""


class SGD(Optimizer):
    def __init__(self, cfg, variables):
        super().__init__(cfg, variables, "GradientDescent")

    def _update(self, var, grad, lr):
        return tf.raw_ops.ResourceApplyGradientDescent(var=var.handle, alpha=lr, delta=grad)


class Momentum(Optimizer):
    """v1 MomentumOptimizer: ``accum = m * accum + g; var -= lr * accum``."""

    slot_names = ("Momentum",)

    def __init__(self, cfg, variables):
        super().__init__(cfg, variables, "Momentum")

    def _update(self, var, grad, lr, accum):
        return tf.raw_ops.ResourceApplyMomentum(
            var=var.handle,
            accum=accum.handle,
            lr=lr,
            grad=grad,
            momentum=tf.constant(self.cfg.momentum, tf.float32),
        )


class Adam(Optimizer):
    """v1 AdamOptimizer: beta powers kept as variables and multiplied each step.

    The kernel computes ``1 - beta`` in float32 (1 - 0.9f is 0.100000024, not
    0.1f); a hand-written version must do the same, or Adam compounds the
    difference into a visible drift within 50 steps.
    """

    slot_names = ("Adam", "Adam_1")

    def __init__(self, cfg, variables):
        super().__init__(cfg, variables, "Adam")
        self.beta1, self.beta2, self.epsilon = cfg.adam_beta1, cfg.adam_beta2, cfg.adam_epsilon
        self.extra = {
            "beta1_power": tf.Variable(self.beta1, name="beta1_power", trainable=False),
            "beta2_power": tf.Variable(self.beta2, name="beta2_power", trainable=False),
        }

    def _update(self, var, grad, lr, m, v):
        return tf.raw_ops.ResourceApplyAdam(
            var=var.handle,
            m=m.handle,
            v=v.handle,
            beta1_power=self.extra["beta1_power"].read_value(),
            beta2_power=self.extra["beta2_power"].read_value(),
            lr=lr,
            beta1=tf.constant(self.beta1, tf.float32),
            beta2=tf.constant(self.beta2, tf.float32),
            epsilon=tf.constant(self.epsilon, tf.float32),
            grad=grad,
        )

    def _finish(self, strategy, lr):
        for name, beta in (("beta1_power", self.beta1), ("beta2_power", self.beta2)):
            strategy.extended.update(self.extra[name], lambda p, b=beta: p.assign(p * b))


class RMSProp(Optimizer):
    """v1 RMSPropOptimizer: mean square starts at 1, no centering; decay,
    momentum and epsilon from the flags (v1's defaults 0.9, 0, 1e-10)."""

    slot_names = ("RMSProp", "RMSProp_1")

    def __init__(self, cfg, variables):
        super().__init__(cfg, variables, "RMSProp")

    def slot_initial(self, var, slot):
        return tf.ones_like(var) if slot == "RMSProp" else tf.zeros_like(var)

    def _update(self, var, grad, lr, ms, mom):
        return tf.raw_ops.ResourceApplyRMSProp(
            var=var.handle,
            ms=ms.handle,
            mom=mom.handle,
            lr=lr,
            rho=tf.constant(self.cfg.rmsprop_decay, tf.float32),
            momentum=tf.constant(self.cfg.rmsprop_momentum, tf.float32),
            epsilon=tf.constant(self.cfg.rmsprop_epsilon, tf.float32),
            grad=grad,
        )


class Adagrad(Optimizer):
    """v1 AdagradOptimizer: ``accum += g * g; var -= lr * g / sqrt(accum)``,
    the accumulator (slot ``Adagrad``) starting at --adagrad_initial_accumulator."""

    slot_names = ("Adagrad",)

    def __init__(self, cfg, variables):
        super().__init__(cfg, variables, "Adagrad")

    def slot_initial(self, var, slot):
        del slot
        return tf.fill(tf.shape(var), tf.constant(self.cfg.adagrad_initial_accumulator, var.dtype))

    def _update(self, var, grad, lr, accum):
        return tf.raw_ops.ResourceApplyAdagrad(var=var.handle, accum=accum.handle, lr=lr, grad=grad)


OPTIMIZERS = {
    "sgd": SGD,
    "momentum": Momentum,
    "adam": Adam,
    "rmsprop": RMSProp,
    "adagrad": Adagrad,
}


def make(cfg: OptimizerConfig, variables: Dict[str, tf.Variable]) -> Optimizer:
    """Creates the optimizer and its slots; call inside ``strategy.scope()``."""
    return OPTIMIZERS[cfg.optimizer](cfg, variables)
