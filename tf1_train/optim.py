"""Optimizers and learning-rate schedules, the tf.compat.v1 way."""

from __future__ import annotations

import tensorflow as tf

from tf1_train.config import OptimizerConfig

v1 = tf.compat.v1


def learning_rate(cfg: OptimizerConfig, global_step: tf.Tensor) -> tf.Tensor:
    """The schedule, after ``lr_warmup_steps`` of linear warmup (BERT's and
    tf_cnn_benchmarks' ``lr * step / warmup_steps`` while step < warmup_steps)."""
    lr = _schedule(cfg, global_step)
    if cfg.lr_warmup_steps <= 0:
        return lr
    warm = cfg.learning_rate * (tf.cast(global_step, tf.float32) / float(cfg.lr_warmup_steps))
    return tf.where(global_step < cfg.lr_warmup_steps, warm, lr, name="warmup_learning_rate")


def _schedule(cfg: OptimizerConfig, global_step: tf.Tensor) -> tf.Tensor:
    """The schedule as a tensor of the global step (so it resumes with it).

    piecewise: ``lr * factor**i`` after the i-th boundary (tf_cnn_benchmarks'
    piecewise schedule); exponential: ``lr * factor**(step / decay_steps)``,
    continuous, or with ``lr_staircase`` in whole periods (the CIFAR-10
    tutorial's); polynomial: from lr to ``lr_end`` over decay_steps, then
    constant.
    """
    lr = cfg.learning_rate
    if cfg.lr_schedule == "piecewise":
        values = [lr * cfg.lr_decay_factor**i for i in range(len(cfg.lr_boundaries) + 1)]
        boundaries = [tf.cast(b, global_step.dtype) for b in cfg.lr_boundaries]
        return v1.train.piecewise_constant(global_step, boundaries, values)
    if cfg.lr_schedule == "exponential":
        return v1.train.exponential_decay(
            lr, global_step, cfg.lr_decay_steps, cfg.lr_decay_factor, staircase=cfg.lr_staircase
        )
    if cfg.lr_schedule == "polynomial":
        return v1.train.polynomial_decay(
            lr, global_step, cfg.lr_decay_steps, cfg.lr_end, power=cfg.lr_power
        )
    return tf.constant(lr, tf.float32, name="learning_rate")


def make_optimizer(cfg: OptimizerConfig, lr: tf.Tensor) -> v1.train.Optimizer:
    """One optimizer instance per graph: its non-slot variables (Adam's beta
    powers) then exist once and advance once per step, in every mode."""
    if cfg.optimizer == "sgd":
        return v1.train.GradientDescentOptimizer(lr)
    if cfg.optimizer == "momentum":
        return v1.train.MomentumOptimizer(lr, cfg.momentum)
    if cfg.optimizer == "adam":
        return v1.train.AdamOptimizer(lr, cfg.adam_beta1, cfg.adam_beta2, cfg.adam_epsilon)
    if cfg.optimizer == "adagrad":
        return v1.train.AdagradOptimizer(lr, cfg.adagrad_initial_accumulator)
    return v1.train.RMSPropOptimizer(
        lr, cfg.rmsprop_decay, cfg.rmsprop_momentum, cfg.rmsprop_epsilon
    )
