"""Batch norm across towers and the CIFAR ResNets.

Moving statistics: one update per variable from the mean over towers of the
batch statistics, run with the train op, used by eval (PORTING.md P2).
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import small_config
from tf1_train import data, devices, graph, models, towers, variable_update
from tf1_train.config import DeviceConfig
from tf1_train.models import layers

v1 = tf.compat.v1
MODES = ["parameter_server", "replicated"]


@pytest.mark.parametrize(
    "name, n, paper", [("resnet20", 3, 0.27e6), ("resnet32", 5, 0.46e6), ("resnet56", 9, 0.85e6)]
)
def test_resnet_parameter_counts_match_the_paper(name, n, paper):
    with tf.Graph().as_default():
        logits = models.get_model(name)(v1.placeholder(tf.float32, [None, 32, 32, 3]), True, 10)
        count = sum(int(np.prod(v.shape)) for v in v1.trainable_variables())
        convs = [v for v in v1.trainable_variables() if v.op.name.endswith("conv/weights")]
    assert count == pytest.approx(paper, rel=0.02)
    assert logits.shape.as_list() == [None, 10]
    assert len(convs) == 6 * n + 1 + 2  # 6n+1 3x3 convs, 2 projections


def _bn_model(x, is_training, num_classes):
    h = layers.conv2d(x, 3, 3, "conv", use_bias=False, kernel_init=layers.he_normal)
    h = tf.nn.relu(layers.batch_norm(h, is_training, "bn"))
    return layers.dense(layers.flatten(h), num_classes, "logits")


def _inputs(halves):
    rng = np.random.RandomState(0)
    x = tf.constant(rng.randn(8, 5, 5, 2).astype(np.float32))
    y = tf.constant(rng.randint(0, 3, 8).astype(np.int32))
    return [(x[4 * i : 4 * i + 4], y[4 * i : 4 * i + 4]) for i in halves]


def _build(mode, halves):
    plan = devices.plan_devices(DeviceConfig(num_towers=len(halves), device="cpu"), 0)
    return towers.build_towers(_bn_model, _inputs(halves), 3, plan, variable_update.get(mode), 0.0)


def _session():
    return v1.Session(config=v1.ConfigProto(device_count={"CPU": 2}))


@pytest.mark.parametrize("mode", MODES)
def test_moving_statistics_follow_the_mean_over_towers(mode):
    with tf.Graph().as_default():
        built = _build(mode, [0, 1])
        updates = variable_update.get(mode).moving_average_updates(built)
        variables = [[r.variable for r in t.moving_stats] for t in built]
        stats = [[r.value for r in t.moving_stats] for t in built]
        assert [len(t.moving_stats) for t in built] == [2, 2]  # mean and variance
        same_var = variables[0][0] is variables[1][0]
        assert same_var == (mode == "parameter_server")
        assert len(updates) == (2 if mode == "parameter_server" else 4)
        with _session() as sess:
            sess.run(v1.global_variables_initializer())
            before, values = sess.run([variables, stats])
            sess.run(updates)
            after = sess.run(variables)
    assert not np.allclose(values[0][0], values[1][0])  # the towers' batches differ
    for k in range(2):  # mean, variance
        expected = 0.9 * before[0][k] + 0.1 * (values[0][k] + values[1][k]) / 2
        np.testing.assert_allclose(after[0][k], expected, rtol=1e-6)
        np.testing.assert_array_equal(after[1][k], after[0][k])  # copies identical


def test_the_records_move_from_the_graph_into_the_towers():
    """Left in the graph, the records (NamedTuples) made every checkpoint's
    MetaGraph export log a serialization warning (seen with --hooks, which
    turns TensorFlow's logging up)."""
    with tf.Graph().as_default():
        built = _build("parameter_server", [0, 1])
        assert [len(t.moving_stats) for t in built] == [2, 2]
        assert v1.get_collection(layers.MOVING_STATS) == []


@pytest.mark.parametrize("mode", MODES)
def test_gradient_rule_holds_per_tower_with_batch_norm(mode):
    """Two towers of B average what two 1-tower graphs of B compute alone."""

    def grads_and_losses(halves):
        with tf.Graph().as_default():
            built = _build(mode, halves)
            per_tower = len(built[0].grads_and_vars)  # tower 0's share (all equal)
            grads = [g for g, _ in variable_update.get(mode).aggregate(built)[:per_tower]]
            with _session() as sess:
                sess.run(v1.global_variables_initializer())
                return sess.run([grads, [t.loss for t in built]])

    both, losses = grads_and_losses([0, 1])
    (alone0, (loss0,)), (alone1, (loss1,)) = grads_and_losses([0]), grads_and_losses([1])
    np.testing.assert_allclose(losses, [loss0, loss1], rtol=1e-6)
    assert len(both) == 5  # conv, beta, gamma, logits weights and biases
    for g, g0, g1 in zip(both, alone0, alone1):
        np.testing.assert_allclose(g, (g0 + g1) / 2, rtol=1e-5, atol=1e-7)


def _eval_logits(g):
    (op,) = [o for o in g.graph.get_operations() if o.name.endswith("eval/logits/BiasAdd")]
    return op.outputs[0]


def _train_resnet(tmp_path, mode):
    cfg = small_config(tmp_path, model="resnet20", towers=2, batch=4, variable_update=mode)
    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan, 1
    )
    moving = {n: v for n, v in g.saved_variables.items() if "/moving_" in n}
    with g.graph.as_default():
        bump = moving["init/bn/moving_mean"].assign_add(tf.ones([16]))
    with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        start = sess.run(moving)
        for _ in range(3):
            sess.run(g.train_op)
        trained = sess.run(moving)
        sess.run(g.eval_init)
        logits = sess.run(_eval_logits(g))
        assert all(np.array_equal(v, trained[n]) for n, v in sess.run(moving).items())
        sess.run([bump, g.eval_init])
        bumped = sess.run(_eval_logits(g))
    return g, moving, start, trained, logits, bumped


@pytest.mark.parametrize("mode", MODES)
def test_moving_statistics_move_in_training_and_eval_uses_them(tmp_path, mode):
    g, moving, start, trained, logits, bumped = _train_resnet(tmp_path, mode)
    assert len(moving) == 2 * 21  # 19 conv + 2 projection batch norms, saved once
    assert set(moving) <= set(g.model_variables)  # counted in variable_devices
    with g.graph.as_default():
        saved_as = variable_update.get(mode).checkpoint_name
        trainable = {saved_as(v.op.name) for v in v1.trainable_variables()}
        moving_vars = [v for v in v1.global_variables() if "/moving_" in v.op.name]
    assert len(trainable - {None}) == 65 and not set(moving) & trainable
    assert len(moving_vars) == 42 * (2 if mode == "replicated" else 1)
    assert all(not np.array_equal(start[n], trained[n]) for n in moving)
    assert not np.allclose(logits, bumped)  # eval reads the moving statistics
