"""TF2 training loop: the same flags, data, progress lines and run_summary.json."""

from __future__ import annotations

import os
import sys
import time
from typing import Dict, List, NamedTuple

import tensorflow as tf

from tf1_train import data, devices, report
from tf1_train.config import Config
from tf1_train.data import pipeline
from tf1_train.tf2 import checkpoint, models, optim, steps
from tf1_train.tf2.strategy import make_strategy
from tf1_train.train import prepare_train_dir

EVAL_BATCH = 500


class Trainer(NamedTuple):
    """Everything a TF2 run holds."""

    strategy: tf.distribute.MirroredStrategy
    plan: devices.DevicePlan
    model: models.Model
    optimizer: optim.Optimizer
    train_step: object  # tf.function (images, labels) -> loss
    eval_step: object  # tf.function (images, labels) -> (correct, count)

    def state_by_name(self) -> Dict[str, tf.Variable]:
        """Model variables and optimizer state by TF1 checkpoint name."""
        return {**self.model.by_name, **self.optimizer.state_by_name()}


class RunResult(NamedTuple):
    summary: Dict
    losses: List[float]


def build(cfg: Config, source, gpus_found: int | None = None) -> Trainer:
    """Strategy, model and optimizer (mirrored), and the compiled steps."""
    strategy, plan = make_strategy(cfg.devices, gpus_found)
    with strategy.scope():
        model = models.build(cfg.model, source.image_shape, source.num_classes)
        opt = optim.make(cfg.optimizer, model.trainable_by_name)
    global_batch = cfg.data.batch_size * cfg.devices.num_towers
    step = steps.make_train_step(strategy, model, opt, global_batch, cfg.optimizer.weight_decay)
    return Trainer(strategy, plan, model, opt, step, steps.make_eval_step(model))


def run(cfg: Config, gpus_found: int | None = None) -> RunResult:
    """Trains per ``cfg`` the TF2 way; writes ``<train_dir>/run_summary.json``."""
    wall_start = time.perf_counter()
    prepare_train_dir(cfg.run.train_dir)
    if cfg.run.deterministic:
        tf.config.experimental.enable_op_determinism()
    source = data.load_source(cfg.data)
    data.check_batch_fits(source, cfg.data.batch_size, cfg.devices.num_towers)
    trainer = build(cfg, source, gpus_found)
    if trainer.plan.warning:
        print(f"warning: {trainer.plan.warning}", file=sys.stderr, flush=True)
    start = checkpoint.restore_latest(cfg.run.train_dir, trainer.state_by_name())
    losses, rate = train_loop(trainer, cfg, source, start)
    checkpoint.save(cfg.run.train_dir, trainer.state_by_name(), int(trainer.optimizer.step.numpy()))
    accuracy = evaluate(trainer, source)
    summary = {
        "tf_version": tf.__version__,
        "model": cfg.model,
        "dataset": cfg.data.dataset,
        "num_towers": cfg.devices.num_towers,
        "tower_devices": list(trainer.plan.tower_devices),
        "variable_update": "mirrored",
        "variable_devices": variable_devices(trainer.model),
        "global_step": int(trainer.optimizer.step.numpy()),
        "final_loss": losses[-1] if losses else None,
        "test_accuracy": accuracy,
        "examples_per_sec": round(rate, 1),
        "wall_seconds": round(time.perf_counter() - wall_start, 1),
        "stopped_by": "train_steps",
    }
    report.write_json_atomic(os.path.join(cfg.run.train_dir, "run_summary.json"), summary)
    print(f"test accuracy {accuracy:.4f}  ({cfg.run.train_dir}/run_summary.json)")
    return RunResult(summary, losses)


def train_loop(trainer: Trainer, cfg: Config, source, start: int):
    """Steps from ``start`` to --train_steps; returns (losses, examples/sec)."""
    todo = cfg.run.train_steps - start
    global_batch = cfg.data.batch_size * cfg.devices.num_towers
    meter = report.ThroughputMeter(global_batch, min(cfg.run.num_warmup_steps, todo - 1), todo)
    ds = pipeline.train_dataset(source, global_batch, cfg.data.seed, start)
    losses = []
    for done, (images, labels) in enumerate(ds.take(max(todo, 0)), start=1):
        loss = float(trainer.train_step(images, labels))
        meter.tick(done)
        losses.append(loss)
        if done % cfg.run.display_every == 0 or done == todo:
            lr = float(optim.learning_rate(cfg.optimizer, trainer.optimizer.step))
            eta = report.format_eta(meter.eta_seconds(done))
            print(
                report.progress_line(
                    start + done, cfg.run.train_steps, loss, meter.window_rate(), lr, eta
                ),
                flush=True,
            )
    return losses, meter.overall_rate()


def evaluate(trainer: Trainer, source) -> float:
    correct = total = 0
    for images, labels in pipeline.eval_dataset(source, EVAL_BATCH):
        c, n = trainer.eval_step(images, labels)
        correct, total = correct + int(c), total + int(n)
    return correct / max(total, 1)


def variable_devices(model: models.Model) -> Dict[str, int]:
    """Copies of the model's variables per device (one per replica)."""
    counts: Dict[str, int] = {}
    for var in model.by_name.values():
        for component in getattr(var, "values", (var,)):
            dev = devices.canonical(component.device)
            counts[dev] = counts.get(dev, 0) + 1
    return counts
