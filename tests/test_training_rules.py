"""The training rules legacy TF1 code uses (--lr_staircase, polynomial decay,
--gradient_clip_norm, --moving_average_decay), against hand computations.

Adagrad and the Adam/RMSProp hyper-parameters are compared op for op with
the TF1 graph by tests/test_equivalence.py; the TF2 twin of clipping and
averaging too.
"""

import dataclasses
import json
import math
import pathlib

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import run_cli, small_config
from tf1_train import data, devices, graph, loop, optim, train
from tf1_train.config import OptimizerConfig
from tf1_train.tf2 import optim as tf2_optim

v1 = tf.compat.v1
STEPS = [0, 1, 99, 100, 101, 250, 1000, 5000]


def _tf1_rates(cfg, steps):
    with tf.Graph().as_default():
        step = v1.placeholder(tf.int64, [])
        lr = optim.learning_rate(cfg, step)
        with v1.Session() as sess:
            return [float(sess.run(lr, {step: s})) for s in steps]


def _tf2_rates(cfg, steps):
    return [float(tf2_optim.learning_rate(cfg, tf.constant(s, tf.int64))) for s in steps]


def _staircase(s):
    return 0.1 * 0.5 ** math.floor(s / 100)


def _polynomial(s):
    return (0.1 - 0.001) * (1 - min(s, 1000) / 1000) ** 2.0 + 0.001


def _warmup_then_staircase(s):
    """BERT's and tf_cnn_benchmarks' linear warmup over 250 steps, then the schedule."""
    return 0.1 * s / 250 if s < 250 else _staircase(s)


SCHEDULES = {
    "staircase": (
        OptimizerConfig(
            learning_rate=0.1,
            lr_schedule="exponential",
            lr_staircase=True,
            lr_decay_steps=100,
            lr_decay_factor=0.5,
        ),
        _staircase,
    ),
    "polynomial": (
        OptimizerConfig(
            learning_rate=0.1,
            lr_schedule="polynomial",
            lr_decay_steps=1000,
            lr_end=0.001,
            lr_power=2.0,
        ),
        _polynomial,
    ),
}
SCHEDULES["warmup"] = (
    dataclasses.replace(SCHEDULES["staircase"][0], lr_warmup_steps=250),
    _warmup_then_staircase,
)


@pytest.mark.parametrize("rates", [_tf1_rates, _tf2_rates], ids=["tf1", "tf2"])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_schedule_matches_hand_computation(schedule, rates):
    cfg, expected = SCHEDULES[schedule]
    got = rates(cfg, STEPS)
    np.testing.assert_allclose(got, [expected(s) for s in STEPS], rtol=1e-6)


def _session(cfg):
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    g = graph.build(cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed)
    sess = v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan))
    sess.run([g.init_op, g.input_init])
    sess.run(g.post_init_ops)
    return g, sess


def _mean_gradient(g):
    """Test-built gradients of the mean tower loss, summed over a variable's
    copies: the mean over towers of each tower's gradient, by model name."""
    with g.graph.as_default():
        params = v1.trainable_variables()
        by_name = {}
        for grad, var in zip(v1.gradients(g.loss, params), params):
            by_name.setdefault(g.mode.model_name(var.op.name), []).append(grad)
        return {name: tf.add_n(parts) for name, parts in by_name.items()}


def _all_copies(g):
    with g.graph.as_default():
        return {v.op.name: v for v in v1.trainable_variables()}


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_gradient_clipping_scales_the_mean_gradient_to_the_global_norm(tmp_path, mode):
    lr, clip = 0.1, 0.3
    cfg = small_config(
        tmp_path, towers=2, variable_update=mode, learning_rate=lr, gradient_clip_norm=clip
    )
    g, sess = _session(cfg)
    grads_t, copies = _mean_gradient(g), _all_copies(g)
    clipped_steps = 0
    with sess:
        for _ in range(4):
            before = sess.run(g.model_variables)
            _, grads = sess.run([g.train_op, grads_t])
            after, every_copy = sess.run([g.model_variables, copies])
            norm = math.sqrt(sum(np.sum(gr.astype(np.float64) ** 2) for gr in grads.values()))
            clipped_steps += norm > clip
            scale = clip / max(norm, clip)
            for name, value in after.items():
                want = before[name] - lr * scale * grads[name].astype(np.float64)
                np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-7, err_msg=name)
            for name, value in every_copy.items():  # replicated copies stay identical
                np.testing.assert_array_equal(value, after[g.mode.model_name(name)])
    assert clipped_steps == 4  # the clip was active at every step


def _numpy_averages(initial, per_step, decay):
    avg = {k: v.astype(np.float64) for k, v in initial.items()}
    for n, weights in enumerate(per_step, start=1):
        d = min(decay, (1.0 + n) / (10.0 + n))
        for k in avg:
            avg[k] -= (avg[k] - weights[k]) * (1.0 - d)
    return avg


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_saved_moving_averages_match_a_numpy_recomputation(tmp_path, mode):
    decay, steps = 0.6, 14  # min(0.6, (1+n)/(10+n)) is 0.6 from n=13 on: both regimes
    cfg = small_config(
        tmp_path,
        towers=2,
        variable_update=mode,
        optimizer="momentum",
        learning_rate=0.05,
        moving_average_decay=decay,
        steps=steps,
    )
    g, sess = _session(cfg)
    with sess:
        initial = sess.run(g.model_variables)
        per_step = []
        for _ in range(steps):
            sess.run(g.train_op)
            per_step.append(sess.run(g.model_variables))
        path = g.saver.save(sess, str(tmp_path / "model.ckpt"), global_step=steps)
    reader = tf.train.load_checkpoint(path)
    want = _numpy_averages(initial, per_step, decay)
    for name, value in want.items():
        got = reader.get_tensor(f"{name}/ExponentialMovingAverage")
        np.testing.assert_allclose(got, value, rtol=1e-5, atol=1e-7, err_msg=name)
        assert not np.allclose(got, per_step[-1][name])  # an average, not the weights


def _accuracy_with(cfg, values):
    """Test accuracy of a graph without averages whose model variables hold
    ``values`` (name -> array)."""
    plain = dataclasses.replace(cfg.optimizer, moving_average_decay=0.0)
    g, sess = _session(dataclasses.replace(cfg, optimizer=plain))
    with sess:
        for name, var in g.model_variables.items():
            var.load(values[name], sess)
        sess.run(g.post_init_ops)
        return loop.evaluate(sess, g)[0]  # (accuracy, the --eval_metrics values)


def _run_tf1(cfg):
    return train.run(cfg, gpus_found=0).summary["test_accuracy"]


def _run_tf2(cfg):
    """Through the command line: MirroredStrategy needs its logical CPU
    devices before TensorFlow starts, so not in the test process."""
    run = cfg.run.train_dir
    flags = [f"--train_dir={run}", "--model=mlp", "--num_gpus=2", "--batch_size=16"]
    oc = cfg.optimizer
    flags += [f"--learning_rate={oc.learning_rate}", f"--train_steps={cfg.run.train_steps}"]
    flags.append(f"--moving_average_decay={oc.moving_average_decay}")
    out = run_cli(flags, module="tf1_train.tf2.main")
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads((pathlib.Path(run) / "run_summary.json").read_text())["test_accuracy"]


PATHS = {
    "tf1-parameter_server": (_run_tf1, "parameter_server"),
    "tf1-replicated": (_run_tf1, "replicated"),
    "tf2": (_run_tf2, "parameter_server"),  # MirroredStrategy whatever the flag
}


@pytest.mark.parametrize("path", PATHS)
def test_evaluation_uses_the_saved_moving_averages(tmp_path, path):
    run, mode = PATHS[path]
    cfg = small_config(
        tmp_path / "run",
        towers=2,
        variable_update=mode,
        learning_rate=0.3,
        moving_average_decay=0.9,
        steps=12,
    )
    accuracy = run(cfg)
    reader = tf.train.load_checkpoint(str(tmp_path / "run"))
    suffix = "/ExponentialMovingAverage"
    saved = reader.get_variable_to_shape_map()
    names = [n for n in saved if n + suffix in saved]
    assert len(names) == 6  # mlp: 3 kernels, 3 biases
    averages = {n: reader.get_tensor(n + suffix) for n in names}
    weights = {n: reader.get_tensor(n) for n in names}
    assert accuracy == _accuracy_with(cfg, averages)
    assert accuracy != _accuracy_with(cfg, weights)  # the averages made a difference
