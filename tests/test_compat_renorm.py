"""Batch renormalization in a user's model (tests/user_models/renorm_model.py)
on tf1_train's towers.

Its updates are not moving averages that a mean over towers could replace
(the moving variance is assigned from the moving stddev), so they stay in
UPDATE_OPS: parameter_server mode runs tower 0's, replicated mode each
tower's on its copy, and one line says so. tests/test_compat_layers.py holds
the layer's numbers to tf_keras's legacy layer; here each of the five
statistics must take exactly one step toward tower 0's (copy i: tower i's)
batch.
"""

import functools
import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import one_training_step, run_cli, small_config
from tests.user_models import renorm_model
from tf1_train import data, devices, graph

v1 = tf.compat.v1
MODEL = "tests.user_models.renorm_model:build"
MODES = ["parameter_server", "replicated"]
EPSILON = 1e-3  # the legacy layer's default
STATS = ("moving_mean", "moving_variance", "moving_stddev", "renorm_mean", "renorm_stddev")


def _build(mode, towers):
    cfg = small_config("unused", model=MODEL, towers=towers, batch=8, variable_update=mode)
    plan = devices.plan_devices(cfg.devices, 0)
    return graph.build(cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices,
                       cfg.optimizer, plan, 0)  # fmt: skip


@functools.cache
def _one_step(mode):
    """Each tower's input to bn2 (a dense layer's [batch, 32] output), and
    bn2's statistics (of every copy) before and after one training step."""
    g = _build(mode, 2)
    ops = g.graph.get_operations()
    inputs = [
        next(op for op in ops if op.name.endswith("bn2_input") and f"tower_{i}/" in op.name)
        for i in range(2)
    ]
    with g.graph.as_default():
        stats = {v.op.name: v for v in v1.global_variables() if "bn2/" in v.op.name}
    stats = {k: v for k, v in stats.items() if k.endswith(STATS)}
    before, batches, after = one_training_step(g, stats, [op.outputs[0] for op in inputs])
    return batches, before, after


def _expected(before, batch, prefix):
    """One step of every statistic toward ``batch``'s moments, as the legacy
    layer takes it (the unfused path's biased variance)."""
    mean, stddev = batch.mean(axis=0), np.sqrt(batch.var(axis=0) + EPSILON)

    def step(name, value, momentum):
        old = before[prefix + name]
        return old - (old - value) * (1 - momentum)

    out = {"moving_mean": step("moving_mean", mean, renorm_model.MOMENTUM)}
    out["moving_stddev"] = step("moving_stddev", stddev, renorm_model.MOMENTUM)
    out["moving_variance"] = np.maximum(out["moving_stddev"] ** 2 - EPSILON, 0)
    out["renorm_mean"] = step("renorm_mean", mean, renorm_model.RENORM_MOMENTUM)
    out["renorm_stddev"] = step("renorm_stddev", stddev, renorm_model.RENORM_MOMENTUM)
    return out


@pytest.mark.parametrize("mode", MODES)
def test_renorm_statistics_take_one_step_toward_tower_0s_batch(mode):
    batches, before, after = _one_step(mode)
    assert not np.allclose(batches[0].mean(axis=0), batches[1].mean(axis=0))
    prefixes = sorted({k[: -len(s)] for k in after for s in STATS if k.endswith(s)})
    assert len(prefixes) == (2 if mode == "replicated" else 1), prefixes
    for i, prefix in enumerate(prefixes):  # copy i follows tower i
        for name, value in _expected(before, batches[i], prefix).items():
            np.testing.assert_allclose(after[prefix + name], value, rtol=1e-5, atol=1e-6,
                                       err_msg=prefix + name)  # fmt: skip


@pytest.mark.parametrize(
    "mode, towers, said",
    [
        ("parameter_server", 2, "tower 0's run, the other towers' are left out"),
        ("replicated", 2, "each tower's run on its own copy"),
        ("parameter_server", 1, None),
    ],
)
def test_renorm_on_towers_is_one_line_that_names_it(capsys, mode, towers, said):
    _build(mode, towers)
    lines = [x for x in capsys.readouterr().out.splitlines() if "UPDATE_OPS" in x]
    if said is None:
        assert lines == []
        return
    assert len(lines) == 1 and said in lines[0], lines
    assert "4 UPDATE_OPS entries" in lines[0] and "batch renormalization's" in lines[0]
    assert "assign_moving_average" not in lines[0]  # not a rewrite the user could make


def test_a_renorm_model_trains_saves_its_statistics_and_evaluates(tmp_path):
    out = run_cli([
        f"--model={MODEL}", "--train_steps=60", "--batch_size=16", "--optimizer=momentum",
        "--learning_rate=0.05", "--display_every=60", f"--train_dir={tmp_path}",
    ])  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "UPDATE_OPS" not in out.stdout
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    # From ln(10) = 2.30; the test split is evaluated with the moving statistics.
    assert summary["final_loss"] < 1.0 and summary["test_accuracy"] > 0.7, summary
    reader = tf.train.load_checkpoint(str(tmp_path))
    for layer in ("bn1", "bn2"):
        stats = {s: reader.get_tensor(f"{layer}/{s}") for s in STATS}
        for name, start in (("moving_mean", 0.0), ("renorm_mean", 0.0), ("renorm_stddev", 1.0)):
            assert np.max(np.abs(stats[name] - start)) > 1e-3, (layer, name)  # they moved
        np.testing.assert_allclose(  # the variance is derived from the stddev
            stats["moving_variance"], np.maximum(stats["moving_stddev"] ** 2 - EPSILON, 0),
            rtol=1e-5, atol=1e-6,
        )  # fmt: skip


def _legacy_step(x, weights, **kwargs):
    """The compat layer in a v1 graph: training outputs, then the statistics
    after its UPDATE_OPS, then inference outputs."""
    from tf1_train.compat import layers

    with tf.Graph().as_default():
        inputs = tf.constant(x)
        train = layers.batch_normalization(inputs, training=True, renorm=True, name="bn", **kwargs)
        infer = layers.batch_normalization(inputs, renorm=True, name="bn", reuse=True, **kwargs)
        variables = {v.op.name.split("/")[-1]: v for v in v1.global_variables()}
        with v1.Session() as sess:
            for name, variable in variables.items():
                variable.load(weights[name], sess)
            trained = sess.run(train)
            sess.run(v1.get_collection(v1.GraphKeys.UPDATE_OPS))
            stats, inferred = sess.run([variables, infer])
    return trained, stats, inferred


def _keras_step(x, weights, **kwargs):
    """Keras 3's BatchNormalization(renorm=True), eagerly: the same three."""
    import keras

    layer = keras.layers.BatchNormalization(renorm=True, **kwargs)
    layer.build(x.shape)
    for variable in layer.weights:
        variable.assign(weights[variable.path.split("/")[-1]])
    trained = layer(x, training=True).numpy()
    stats = {v.path.split("/")[-1]: v.numpy() for v in layer.weights}
    return trained, stats, layer(x, training=False).numpy()


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"renorm_clipping": {"rmax": 1.1, "rmin": 0.9, "dmax": 0.05}, "renorm_momentum": 0.7,
          "momentum": 0.8, "epsilon": 0.01}],
)  # fmt: skip
def test_keras_3s_renorm_layer_computes_what_the_legacy_one_does(kwargs):
    # The TF2 port of a renorm model: Keras 3 has the same five variables,
    # names and equations (its updates written m * momentum + x * (1 -
    # momentum), the legacy m - (m - x) * (1 - momentum): float32 rounding).
    rng = np.random.RandomState(3)
    x = rng.normal(0.5, 2.0, [16, 4, 4, 3]).astype(np.float32)
    weights = {name: rng.uniform(0.5, 1.5, [3]).astype(np.float32) for name in STATS}
    weights.update(gamma=rng.uniform(0.5, 1.5, [3]), beta=rng.uniform(-0.5, 0.5, [3]))
    weights = {k: np.float32(v) for k, v in weights.items()}
    weights["moving_variance"] = weights["moving_stddev"] ** 2 - 1e-3  # as a layer keeps them
    legacy, keras = _legacy_step(x, weights, **kwargs), _keras_step(x, weights, **kwargs)
    np.testing.assert_allclose(keras[0], legacy[0], rtol=1e-5, atol=1e-5)
    assert sorted(keras[1]) == sorted(legacy[1])
    for name in legacy[1]:
        np.testing.assert_allclose(keras[1][name], legacy[1][name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)  # fmt: skip
    np.testing.assert_allclose(keras[2], legacy[2], rtol=1e-5, atol=1e-5)
