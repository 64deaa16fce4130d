"""The TF1 session loop: build, initialise, train, evaluate, summarise."""

from __future__ import annotations

import os
import sys
import time
from typing import Dict, List, NamedTuple

import tensorflow as tf

from tf1_train import data, devices, graph, report
from tf1_train.config import Config
from tf1_train.errors import UserError

v1 = tf.compat.v1


class RunResult(NamedTuple):
    """What a finished run measured (``summary`` is run_summary.json)."""

    summary: Dict
    losses: List[float]  # mean tower loss of every step this process ran


def run(cfg: Config, gpus_found: int | None = None) -> RunResult:
    """Trains per ``cfg`` and writes ``<train_dir>/run_summary.json``.

    Args:
      cfg: a validated Config.
      gpus_found: GPU count to plan for; None asks TensorFlow.
    """
    wall_start = time.perf_counter()
    prepare_train_dir(cfg.run.train_dir)
    if gpus_found is None:
        gpus_found = devices.count_gpus()
    plan = devices.plan_devices(cfg.devices, gpus_found)
    if plan.warning:
        print(f"warning: {plan.warning}", file=sys.stderr, flush=True)
    source = data.load_source(cfg.data)
    data.check_batch_fits(source, cfg.data.batch_size, cfg.devices.num_towers)
    if cfg.run.deterministic:
        tf.config.experimental.enable_op_determinism()
    g = graph.build(cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed)
    print_startup(cfg, plan)
    session = v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan))
    with data.read_errors(source), session as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init, {g.start_step: 0})
        losses, rate, step = train_loop(sess, g, cfg)
        accuracy = evaluate(sess, g)
    summary = {
        "tf_version": tf.__version__,
        "model": cfg.model,
        "dataset": cfg.data.dataset,
        "num_towers": cfg.devices.num_towers,
        "tower_devices": list(plan.tower_devices),
        "variable_update": cfg.devices.variable_update,
        "variable_devices": variable_devices(g),
        "global_step": step,
        "final_loss": losses[-1] if losses else None,
        "test_accuracy": accuracy,
        "examples_per_sec": round(rate, 1),
        "wall_seconds": round(time.perf_counter() - wall_start, 1),
        "stopped_by": "train_steps",
    }
    report.write_json_atomic(os.path.join(cfg.run.train_dir, "run_summary.json"), summary)
    print(f"test accuracy {accuracy:.4f}  ({cfg.run.train_dir}/run_summary.json)")
    return RunResult(summary, losses)


def train_loop(sess: v1.Session, g: graph.TrainGraph, cfg: Config):
    """Runs the training steps; returns (losses, examples/sec, global step)."""
    run_cfg = cfg.run
    meter = report.ThroughputMeter(
        cfg.data.batch_size * cfg.devices.num_towers,
        min(run_cfg.num_warmup_steps, run_cfg.train_steps - 1),
        run_cfg.train_steps,
    )
    # The global step is not fetched with train_op: whether that read sees the
    # increment is up to the scheduler. The step count is known anyway.
    fetches = [g.train_op, g.loss, g.learning_rate]
    losses = []
    for done in range(1, run_cfg.train_steps + 1):
        _, loss, lr = sess.run(fetches)
        meter.tick(done)
        losses.append(float(loss))
        if done % run_cfg.display_every == 0 or done == run_cfg.train_steps:
            eta = report.format_eta(meter.eta_seconds(done))
            line = report.progress_line(
                done, run_cfg.train_steps, loss, meter.window_rate(), lr, eta
            )
            print(line, flush=True)
    return losses, meter.overall_rate(), int(sess.run(g.global_step))


def evaluate(sess: v1.Session, g: graph.TrainGraph) -> float:
    """Accuracy over the whole test split."""
    sess.run(g.eval_init)
    correct = total = 0
    while True:
        try:
            c, n = sess.run([g.eval_correct, g.eval_count])
        except tf.errors.OutOfRangeError:
            break
        correct, total = correct + int(c), total + int(n)
    return correct / max(total, 1)


def variable_devices(g: graph.TrainGraph) -> Dict[str, int]:
    """Model variables per device, from the graph's placement requests."""
    counts: Dict[str, int] = {}
    for var in g.model_variables.values():
        dev = devices.canonical(var.device or "/device:CPU:0")
        counts[dev] = counts.get(dev, 0) + 1
    return counts


def prepare_train_dir(path: str) -> None:
    """Creates train_dir or fails with one line if it cannot be written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"--train_dir={path}: exists and is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".write_test")
        with open(probe, "w") as f:
            f.write("ok")
        os.unlink(probe)
    except OSError as e:
        raise UserError(f"--train_dir={path}: not writable ({e.strerror})") from None


def print_startup(cfg: Config, plan: devices.DevicePlan) -> None:
    print(f"tf1_train  TensorFlow {tf.__version__}", flush=True)
    print(
        f"devices: {plan.gpus_found} GPU(s) found; "
        f"model {cfg.model} on {cfg.data.dataset}, batch {cfg.data.batch_size}/tower, "
        f"variable_update {cfg.devices.variable_update}"
    )
    for line in devices.describe(plan, cfg.devices.variable_update):
        print(line)
    print(f"train_dir: {cfg.run.train_dir}", flush=True)
