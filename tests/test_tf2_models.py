"""The TF2 modules have the TF1 graph's variable names and shapes."""

import pytest
import tensorflow as tf

from tests.conftest import small_config
from tf1_train import data, devices, graph
from tf1_train import models as registry
from tf1_train.tf2 import models

MODELS = registry.with_tf2()


def _tf1_shapes(model, image_shape_source):
    cfg = small_config("unused", model=model)
    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(
        cfg.model, image_shape_source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed
    )
    return {n: (v.shape.as_list(), v.trainable) for n, v in g.model_variables.items()}


@pytest.mark.parametrize("model", MODELS)
def test_tf2_module_variables_match_the_tf1_graph(model):
    source = data.load_source(small_config("unused").data)
    want = _tf1_shapes(model, source)
    net = models.build(model, source.image_shape, source.num_classes)
    got = {n: (v.shape.as_list(), v.trainable) for n, v in net.by_name.items()}
    assert got == want


def test_tf2_resnet_eval_uses_moving_statistics_and_training_records_them():
    net = models.build("resnet20", (8, 8, 1), 10)
    x = tf.random.uniform([4, 8, 8, 1])
    stats = {}
    net(x, training=True, stats=stats)
    assert set(stats) == set(net.moving_by_name) and len(stats) == 2 * 21
    before = net(x, training=False).numpy()
    net.by_name["init/bn/moving_mean"].assign_add(tf.ones([16]))
    assert not (net(x, training=False).numpy() == before).all()
