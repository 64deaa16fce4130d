"""Tower semantics: the mean-of-tower-gradients rule and shared variables.

Every run builds its own tf.Graph (graph.build); nothing here leaves eager
mode for the process.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import small_config
from tf1_train import towers, train, variable_update

v1 = tf.compat.v1


def _run(tmp_path, name, **kw):
    return train.run(small_config(tmp_path / name, **kw), gpus_found=0)


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
@pytest.mark.parametrize("optimizer", ["sgd", "momentum"])
def test_n_towers_of_b_equal_one_tower_of_n_times_b(tmp_path, n, mode, optimizer):
    one = _run(tmp_path, "one", towers=1, batch=8 * n, steps=6, optimizer=optimizer)
    many = _run(
        tmp_path, "many", towers=n, batch=8, steps=6, optimizer=optimizer, variable_update=mode
    )
    np.testing.assert_allclose(many.losses, one.losses, rtol=2e-5)
    # it trained: the 10 digit classes well above chance (per-batch losses
    # are too noisy over 6 steps to say so)
    assert one.summary["test_accuracy"] > 2 / 10


@pytest.mark.parametrize("model", ["mlp", "lenet5"])
def test_replicated_and_parameter_server_give_the_same_losses(tmp_path, model):
    ps = _run(tmp_path, "ps", model=model, towers=2, steps=8, optimizer="momentum")
    rep = _run(
        tmp_path,
        "rep",
        model=model,
        towers=2,
        steps=8,
        optimizer="momentum",
        variable_update="replicated",
    )
    np.testing.assert_allclose(rep.losses, ps.losses, rtol=1e-5)


def _build_graph(n, mode, model="lenet5", optimizer="adam"):
    from tf1_train import data, devices, graph

    cfg = small_config("unused", model=model, towers=n, variable_update=mode, optimizer=optimizer)
    plan = devices.plan_devices(cfg.devices, 0)
    return graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan, 0
    )


@pytest.mark.parametrize("n", [1, 2, 4])
def test_every_variable_exists_once_whatever_the_tower_count(n):
    g = _build_graph(n, "parameter_server")
    with g.graph.as_default():
        names = sorted(v.op.name for v in v1.trainable_variables())
        all_vars = len(v1.global_variables())
    assert names == sorted(v.op.name for v in _trainables(_build_graph(1, "parameter_server")))
    assert len(names) == 10  # lenet5: 5 layers x (weights, biases)
    # Adam: 2 slots per variable + 2 beta powers + global_step.
    assert all_vars == 10 * 3 + 3


def _trainables(g):
    with g.graph.as_default():
        return v1.trainable_variables()


@pytest.mark.parametrize("n", [2, 3])
def test_replicated_saves_each_variable_once_under_parameter_server_names(n):
    ps = _build_graph(n, "parameter_server")
    rep = _build_graph(n, "replicated")
    assert sorted(rep.saved_variables) == sorted(ps.saved_variables)
    with rep.graph.as_default():
        copies = [v for v in v1.trainable_variables() if v.op.name.startswith(f"v{n - 1}/")]
    assert len(copies) == 10
    # Broadcast covers every copied variable, optimizer slots included.
    assert len(rep.post_init_ops) == (n - 1) * 10 * 3


def test_replicated_copies_stay_identical(tmp_path):
    g = _build_graph(3, "replicated", optimizer="momentum")
    with v1.Session(graph=g.graph, config=v1.ConfigProto(device_count={"CPU": 3})) as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        for _ in range(5):
            sess.run(g.train_op)
        with g.graph.as_default():
            values = {v.op.name: v for v in v1.global_variables()}
        for name, var in values.items():
            if name.startswith("v0/"):
                a = sess.run(var)
                for i in (1, 2):
                    np.testing.assert_array_equal(sess.run(values[f"v{i}/" + name[3:]]), a)


def test_mean_gradient_rules():
    with tf.Graph().as_default():
        a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 6.0])
        assert towers.mean_gradient([None, None], "x") is None
        with pytest.raises(ValueError, match="variable x: 1 of 2 towers produced no gradient"):
            towers.mean_gradient([a, None], "x")
        dense = towers.mean_gradient([a, b], "x")
        s1 = tf.IndexedSlices(tf.constant([[1.0], [2.0]]), tf.constant([0, 2]), tf.constant([4, 1]))
        s2 = tf.IndexedSlices(tf.constant([[4.0]]), tf.constant([2]), tf.constant([4, 1]))
        sparse = towers.mean_gradient([s1, s2], "emb")
        assert isinstance(sparse, tf.IndexedSlices)
        with v1.Session() as sess:
            np.testing.assert_allclose(sess.run(dense), [2.0, 4.0])
            dense_sum = sess.run(tf.convert_to_tensor(sparse))
    np.testing.assert_allclose(dense_sum[:, 0], [0.5, 0.0, 3.0, 0.0])


def test_sparse_gradients_from_gather_train_in_towers():
    """An embedding lookup yields IndexedSlices; the average keeps them sparse."""
    from tf1_train import devices
    from tf1_train.config import DeviceConfig

    plan = devices.plan_devices(DeviceConfig(num_towers=2, device="cpu"), 0)

    def model(ids, is_training, num_classes):
        emb = v1.get_variable("emb", [10, num_classes], initializer=v1.zeros_initializer())
        return tf.gather(emb, ids)

    with tf.Graph().as_default():
        ids = tf.constant([1, 2, 3, 4])
        labels = tf.constant([0, 1, 0, 1])
        built = towers.build_towers(
            model,
            [(ids[:2], labels[:2]), (ids[2:], labels[2:])],
            2,
            plan,
            variable_update.get("parameter_server"),
            0.0,
        )
        ((grad, var),) = variable_update.get("parameter_server").aggregate(built)
        assert isinstance(grad, tf.IndexedSlices)


def test_towers_with_different_variables_fail_with_their_names():
    from tf1_train import devices
    from tf1_train.config import DeviceConfig

    plan = devices.plan_devices(DeviceConfig(num_towers=2, device="cpu"), 0)
    calls = []

    def odd_model(x, is_training, num_classes):
        calls.append(1)
        w = v1.get_variable("w", [4, num_classes])
        if len(calls) == 2:
            with v1.variable_scope("extra", reuse=v1.AUTO_REUSE):
                w = w + v1.get_variable("only_tower1", [4, num_classes])
        return tf.matmul(x, w)

    with tf.Graph().as_default():
        x = tf.ones([4, 4])
        y = tf.zeros([4], tf.int32)
        with pytest.raises(ValueError, match=r"tower 1 .*extra \['extra/only_tower1'\]"):
            replicated = variable_update.get("replicated")
            towers.build_towers(odd_model, [(x, y), (x, y)], 3, plan, replicated, 0.0)
