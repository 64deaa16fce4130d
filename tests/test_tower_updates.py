"""UPDATE_OPS a user's model assigns by hand, with 2 towers.

They cannot be averaged over towers: parameter_server mode runs tower 0's
(from every tower, N assigns would hit each shared variable per step in no
fixed order), replicated mode runs each tower's on its copy; the saved copy
follows tower 0's batch in both, and one line says so.
"""

import functools

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import one_training_step, small_config
from tests.user_models import hand_batch_norm
from tf1_train import data, devices, graph, naming, tower_updates

v1 = tf.compat.v1
MODES = ["parameter_server", "replicated"]
MODELS = {
    "assign": "tests.user_models.hand_batch_norm:build_assign",
    "tensor_decay": "tests.user_models.hand_batch_norm:build_tensor_decay",
    "assign_moving_average": "tests.user_models.hand_batch_norm:build",
}


def _build(model, mode, towers=2):
    cfg = small_config("unused", model=model, towers=towers, batch=8, variable_update=mode)
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    return graph.build(cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, 0)


def _prefix(mode, i):
    return f"{naming.replica_scope(i)}/" if mode == "replicated" else ""


@functools.cache
def _one_step(model, mode):
    """Each tower's batch-norm input, the moving statistics before and after
    one training step."""
    g = _build(model, mode)
    ops = g.graph.get_operations()
    xs = [
        next(op for op in ops if op.type.startswith("FusedBatchNorm") and f"tower_{i}/" in op.name)
        for i in range(2)
    ]
    with g.graph.as_default():
        stats = {v.op.name: v for v in v1.global_variables() if "/moving_" in v.op.name}
    before, inputs, after = one_training_step(g, stats, [x.inputs[0] for x in xs])
    return inputs, before, after


@pytest.mark.parametrize("model", ["assign", "tensor_decay"])
@pytest.mark.parametrize("mode", MODES)
def test_hand_assigned_statistics_follow_tower_0s_batch_once_per_step(mode, model):
    inputs, before, after = _one_step(MODELS[model], mode)
    assert not np.allclose(inputs[0].mean(axis=(0, 1, 2)), inputs[1].mean(axis=(0, 1, 2)))
    n = np.prod(inputs[0].shape[:3])
    for i in range(2 if mode == "replicated" else 1):  # copy i follows tower i
        x = inputs[i]
        mean, var = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2)) * n / (n - 1)
        name = f"{_prefix(mode, i)}bn1/moving_"
        d = hand_batch_norm.DECAY
        for stat, value in (("mean", mean), ("variance", var)):
            expected = d * before[name + stat] + (1 - d) * value
            np.testing.assert_allclose(after[name + stat], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "model, mode, towers, said",
    [
        ("assign", "parameter_server", 2, "tower 0's run, the other towers' are left out"),
        ("tensor_decay", "replicated", 2, "each tower's run on its own copy"),
        ("assign", "parameter_server", 1, None),
        ("assign_moving_average", "parameter_server", 2, None),  # averaged over towers
    ],
)
def test_updates_not_averaged_over_towers_are_one_line(capsys, model, mode, towers, said):
    _build(MODELS[model], mode, towers)
    lines = [x for x in capsys.readouterr().out.splitlines() if "UPDATE_OPS" in x]
    if said is None:
        assert lines == []
        return
    assert len(lines) == 1 and said in lines[0]
    assert f"({_prefix(mode, 0)}tower_0/bn1/" in lines[0] and "2 UPDATE_OPS entries" in lines[0]


def test_written_variables_sees_through_groups_and_control_dependencies():
    with tf.Graph().as_default():
        a, b, c = (v1.get_variable(n, [2], trainable=False) for n in "abc")
        with tf.control_dependencies([a.assign_add([1.0, 1.0])]):
            read = tf.identity(b.read_value())
        group = tf.group(v1.assign(c, a * 2.0), read)
        assert tower_updates.written_variables(group) == {"a", "c"}
        assert tower_updates.written_variables(v1.assign(b, c)) == {"b"}
        assert tower_updates.written_variables(tf.identity(a + b).op) == set()


@pytest.mark.parametrize(
    "mode, towers, said",
    [
        ("parameter_server", 2, "centers by ResourceScatterSub): all 2 towers write each shared "
         "variable every step, in no fixed order"),
        ("replicated", 2, "v0/centers by ResourceScatterSub): each tower's runs on its own copy"),
        ("parameter_server", 1, None),
    ],
)  # fmt: skip
def test_variables_the_forward_pass_writes_are_one_line(capsys, mode, towers, said):
    """A center loss's scatter_sub under its penalty's control dependencies:
    the loss needs it, so every tower's runs, unlike an UPDATE_OPS entry."""
    _build("tests.user_models.center_loss:build", mode, towers)
    lines = [x for x in capsys.readouterr().out.splitlines() if "forward pass" in x]
    if said is None:
        assert lines == []
        return
    assert len(lines) == 1 and lines[0].startswith("warning: the model writes variables")
    assert said in lines[0]
