"""Optimizers, learning-rate schedules and weight decay."""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import small_config
from tf1_train import data, devices, graph, optim, train
from tf1_train.config import OptimizerConfig

v1 = tf.compat.v1


def _lr_at(cfg: OptimizerConfig, steps):
    with tf.Graph().as_default():
        step = v1.placeholder(tf.int64, [])
        lr = optim.learning_rate(cfg, step)
        with v1.Session() as sess:
            return [float(sess.run(lr, {step: s})) for s in steps]


def test_constant_schedule():
    assert _lr_at(OptimizerConfig(learning_rate=0.1), [0, 10**6]) == pytest.approx([0.1, 0.1])


def test_piecewise_schedule_multiplies_at_each_boundary():
    cfg = OptimizerConfig(
        learning_rate=0.1, lr_schedule="piecewise", lr_boundaries=(10, 20), lr_decay_factor=0.5
    )
    got = _lr_at(cfg, [0, 10, 11, 20, 21, 1000])
    assert got == pytest.approx([0.1, 0.1, 0.05, 0.05, 0.025, 0.025])


def test_exponential_schedule_is_continuous():
    cfg = OptimizerConfig(
        learning_rate=0.1, lr_schedule="exponential", lr_decay_steps=100, lr_decay_factor=0.5
    )
    assert _lr_at(cfg, [0, 50, 100, 200]) == pytest.approx([0.1, 0.1 * 0.5**0.5, 0.05, 0.025])


@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "rmsprop"])
@pytest.mark.parametrize("towers", [1, 2])
def test_every_optimizer_trains(tmp_path, name, towers):
    lr = {"sgd": 0.2, "momentum": 0.05, "adam": 0.003, "rmsprop": 0.03}[name]
    cfg = small_config(
        tmp_path, towers=towers, batch=32, steps=60, optimizer=name, learning_rate=lr
    )
    losses = train.run(cfg, gpus_found=0).losses
    assert np.mean(losses[-5:]) < 0.7 * np.mean(losses[:5])


def test_weight_decay_adds_half_squared_norm_of_weights_only(tmp_path):
    wd = 0.01
    base = small_config(tmp_path, model="mlp", towers=2)
    decayed = dataclasses.replace(
        base, optimizer=dataclasses.replace(base.optimizer, weight_decay=wd)
    )
    values = []
    for cfg in (base, decayed):
        plan = devices.plan_devices(cfg.devices, 0)
        g = graph.build(
            cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan, 1
        )
        with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as s:
            s.run([g.init_op, g.input_init])
            loss, weights = s.run(
                [g.loss, {n: v for n, v in g.model_variables.items() if n.endswith("/weights")}]
            )
        values.append((loss, weights))
    (plain, _), (with_wd, weights) = values
    assert len(weights) == 3  # fc1, fc2, logits kernels; biases are not decayed
    l2 = sum(float(np.sum(w.astype(np.float64) ** 2)) / 2 for w in weights.values())
    assert with_wd - plain == pytest.approx(wd * l2, rel=1e-4)
