"""TF2 training loop: the same flags, data, progress lines and run_summary.json."""

from __future__ import annotations

import contextlib
import math
import os
import time
from typing import Dict, List, NamedTuple, Optional, Tuple

import tensorflow as tf

from tf1_train import data, devices, eval_metrics, prelude, report, signals, warm_start
from tf1_train import models as tf1_models
from tf1_train.config import Config
from tf1_train.data import pipeline, user_input
from tf1_train.errors import TrainingDiverged, UserError
from tf1_train.models import outputs
from tf1_train.tf2 import cadence, checkpoint, models, optim, steps
from tf1_train.tf2 import precision as precisionlib
from tf1_train.tf2.averages import WeightAverages
from tf1_train.tf2.strategy import make_strategy
from tf1_train.tf2.summaries import ScalarWriter


class Trainer(NamedTuple):
    """Everything a TF2 run holds."""

    strategy: tf.distribute.MirroredStrategy
    plan: devices.DevicePlan
    model: models.Model
    optimizer: optim.Optimizer
    steps: steps.Steps
    preprocess: Optional[user_input.Preprocess] = None  # --preprocess, checked
    averages: Optional[WeightAverages] = None  # --moving_average_decay
    loss_scale: Optional[precisionlib.LossScale] = None  # --precision=fp16
    metrics: Optional[eval_metrics.Fed] = None  # --eval_metrics, in a graph of its own

    def state_by_name(self) -> Dict[str, tf.Variable]:
        """Model variables, optimizer state, loss scale and weight averages, by
        TF1 checkpoint name."""
        found = {**self.model.by_name, **self.optimizer.state_by_name()}
        found.update(self.loss_scale.by_name() if self.loss_scale else {})
        return {**found, **(self.averages.by_name if self.averages else {})}


class RunResult(NamedTuple):
    summary: Dict
    losses: List[float]
    stop_signal: Optional[str] = None  # the signal that stopped the run (main exits 128 + N)


def build(cfg: Config, source, gpus_found: int | None = None) -> Trainer:
    """Strategy, model and optimizer (mirrored), and the compiled steps."""
    strategy, plan = make_strategy(cfg.devices, gpus_found)
    pre = user_input.load(cfg.data.preprocess, source.image_shape, cfg.data.seed)
    image_shape = pre.image_shape if pre else source.image_shape
    tf.random.set_seed(cfg.run.seed)  # a user's twin may use stateful initializers
    with strategy.scope():
        compute = precisionlib.compute_type(cfg.precision.precision)
        model = models.build(cfg.model, image_shape, source.num_classes, cfg.tf2_model, compute)
        opt = optim.make(cfg.optimizer, model.trainable_by_name)
        decay = cfg.optimizer.moving_average_decay
        averages = WeightAverages(decay, model.trainable_by_name) if decay > 0 else None
        loss_scale = _loss_scale(cfg)
    if cfg.optimizer.weight_decay > 0 and model.extra_losses():
        raise UserError(
            f"--weight_decay={cfg.optimizer.weight_decay}: the model adds its own "
            "regularization (extra_losses); use one or the other"
        )
    loss_fn = None
    if cfg.loss:
        loss_fn = tf1_models.checked(tf1_models.resolve(cfg.loss, "loss"), cfg.loss, "loss")
    end_points = model.end_points_spec
    what = f"--tf2_model={cfg.tf2_model}" if cfg.tf2_model else f"--model={cfg.model}"
    outputs.check_pairing(end_points is not None, loss_fn, what)
    if loss_fn is not None:
        _probe_loss(loss_fn, cfg.data.batch_size, source.num_classes, end_points)
    global_batch = cfg.data.batch_size * cfg.devices.num_towers
    oc = cfg.optimizer
    compiled = steps.make_steps(
        strategy, model, opt, global_batch, oc.weight_decay,
        None if pre else source.scale, loss_fn,
        clip_norm=oc.gradient_clip_norm, averages=averages,
        compute=compute, loss_scale=loss_scale,
    )  # fmt: skip
    fed = None
    if cfg.eval_metrics:
        fed = eval_metrics.Fed(cfg.eval_metrics, source.num_classes, loss_fn)
        print(eval_metrics.describe(cfg.eval_metrics, fed.metrics), flush=True)
    return Trainer(strategy, plan, model, opt, compiled, pre, averages, loss_scale, fed)


def _warm_start(cfg: Config, trainer: Trainer, fresh: bool) -> None:
    """--init_checkpoint on a fresh run (warm_start.py), as the TF1 path does."""
    run = cfg.run
    if not run.init_checkpoint:
        return
    if not fresh:
        print("--init_checkpoint not used: train_dir holds a checkpoint to resume", flush=True)
        return
    averages = trainer.averages.by_name if trainer.averages else {}
    exclude = warm_start.exclude_list(run.init_exclude)
    line = warm_start.load_tf2(trainer.model.by_name, averages, run.init_checkpoint, exclude)
    print(line, flush=True)


def _probe_loss(loss_fn, batch: int, num_classes: int, end_points=None) -> None:
    """Traces the user's loss once on symbolic labels and logits (and the
    twin's end points) of a replica's batch: a loss the step cannot use
    fails here, in one line, before train_dir gets an event file (the TF1
    graph finds it as early)."""
    labels = tf.TensorSpec([batch], tf.int32)
    logits = tf.TensorSpec([batch, num_classes], tf.float32)
    specs = [labels, logits]
    if end_points is not None:  # float32, a replica's batch: as the step gives them
        specs.append({k: _replica_spec(s, batch) for k, s in end_points.items()})
    tf.function(loss_fn, autograph=False).get_concrete_function(*specs)


def _replica_spec(spec: tf.TensorSpec, batch: int) -> tf.TensorSpec:
    shape = [batch, *spec.shape[1:]] if spec.shape.rank else spec.shape
    return tf.TensorSpec(shape, tf.float32 if spec.dtype.is_floating else spec.dtype)


def _loss_scale(cfg: Config) -> Optional[precisionlib.LossScale]:
    """fp16's loss scale (dynamic unless --loss_scale is a number); in the
    strategy's scope, so every replica has its copy."""
    if cfg.precision.precision != "fp16":
        return None
    return precisionlib.LossScale(cfg.precision.loss_scale or "dynamic")


def run(cfg: Config, gpus_found: int | None = None) -> RunResult:
    """Trains per ``cfg`` the TF2 way; writes ``<train_dir>/run_summary.json``.

    Saves, evaluates and stops as the TF1 loop (cadence.py); raises
    TrainingDiverged after a NaN/Inf stop (the summary written first) and
    leaves a signal's exit status to main.
    """
    wall_start = time.perf_counter()
    source = prelude.start(cfg)
    trainer = build(cfg, source, gpus_found)
    prelude.warn_about_devices(trainer.plan)
    restored = checkpoint.latest(cfg.run.train_dir)
    start = checkpoint.restore_latest(cfg.run.train_dir, trainer.state_by_name())
    if trainer.loss_scale is not None and restored is not None:
        trainer.loss_scale.keep_fixed()
    _warm_start(cfg, trainer, restored is None)
    writer = scalar_writer(cfg)
    with signals.graceful_stop() as stop:
        between = cadence.Between(
            cfg, trainer.state_by_name, lambda: evaluate(trainer, source), writer, stop, restored
        )
        losses, meter = train_loop(trainer, cfg, source, start, writer, between.after_step)
        step = int(trainer.optimizer.step.numpy())
        stopped_by = between.end(step)
    writer.close()
    summary = report.run_summary(
        cfg=cfg,
        tower_devices=trainer.plan.tower_devices,
        variable_update="mirrored",
        variable_devices=variable_devices(trainer.model.by_name.values()),
        global_step=step,
        final_loss=losses[-1] if losses and math.isfinite(losses[-1]) else None,
        test_accuracy=between.accuracy,
        examples_per_sec=meter.overall_rate(),
        median_step_rate=meter.median_step_rate(),
        wall_start=wall_start,
        first_step_done=meter.first_tick,
        stopped_by=stopped_by,
        tf_version=tf.__version__,
    )
    summary.update(resumed_from_step=start, checkpoint=between.checkpoint)
    if trainer.loss_scale is not None:
        summary.update(trainer.loss_scale.values())
    if trainer.metrics is not None and between.metrics is not None:
        summary["eval_metrics"] = between.metrics
    finish(cfg, summary, between.accuracy)
    if between.diverged is not None:
        raise TrainingDiverged(
            f"{between.diverged}: training stopped and that state was not saved; last good "
            f"checkpoint: {between.checkpoint or 'none was saved'}; try a lower --learning_rate"
        )
    return RunResult(summary, losses, stop.signal_name)


def finish(cfg: Config, summary: Dict, accuracy: Optional[float]) -> None:
    report.write_json_atomic(os.path.join(cfg.run.train_dir, "run_summary.json"), summary)
    if accuracy is None:  # stopped by a signal: no final eval, as on TF1
        print(f"done: global step {summary['global_step']}  ({cfg.run.train_dir}/run_summary.json)")
        return
    print(f"test accuracy {accuracy:.4f}  ({cfg.run.train_dir}/run_summary.json)")


def scalar_writer(cfg: Config) -> ScalarWriter:
    run = cfg.run
    return ScalarWriter(
        run.train_dir, run.summary_verbosity, run.save_summary_steps, run.train_steps
    )


class Progress:
    """Throughput meter, progress lines and TensorBoard scalars, shared by the
    custom loop and fit."""

    def __init__(self, cfg: Config, start: int, writer: ScalarWriter | None = None, extra=None):
        self.cfg, self.start, self.writer = cfg, start, writer
        self.extra = extra  # () -> more scalars (the loss scale), or None
        self.todo = max(cfg.run.train_steps - start, 0)
        global_batch = cfg.data.batch_size * cfg.devices.num_towers
        warmup = min(cfg.run.num_warmup_steps, max(self.todo - 1, 0))
        self.meter = report.ThroughputMeter(global_batch, warmup, self.todo)
        self.losses: List[float] = []

    def step_done(self, loss: float, lr_fn) -> None:
        """After each step; lines and scalars are keyed to the global step, as
        the TF1 loop's are, so a resumed run prints at the same steps."""
        done = len(self.losses) + 1
        step = self.start + done
        run = self.cfg.run
        self.meter.tick(done)
        self.losses.append(loss)
        if step % run.display_every == 0 or step >= run.train_steps:
            eta = report.format_eta(self.meter.eta_seconds(done))
            rate = self.meter.window_rate()
            print(report.progress_line(step, run.train_steps, loss, rate, lr_fn(), eta), flush=True)
        if self.writer is not None and self.writer.due(step):
            values = {"loss": loss, "learning_rate": lr_fn()}
            self.writer.scalars(step, {**values, **(self.extra() if self.extra else {})})


def train_loop(trainer: Trainer, cfg: Config, source, start: int, writer=None, after_step=None):
    """Steps from ``start`` to --train_steps, or until ``after_step(global
    step, loss)`` returns True; returns (losses, throughput meter)."""
    ls = trainer.loss_scale
    progress = Progress(cfg, start, writer, ls.values if ls is not None else None)
    lr = lambda: float(optim.learning_rate(cfg.optimizer, trainer.optimizer.step))  # noqa: E731
    # The model's own tf.summary calls record under the writer (summaries.py)
    # on the steps that are due: only then does ``due`` hold a step (> 0), so
    # the loop assigns it twice per --save_summary_steps, not every step.
    due = tf.Variable(-1, dtype=tf.int64, trainable=False, name="summary_step")
    held = -1
    with writer.recording(due) if writer else contextlib.nullcontext():
        for images, labels in _batches(trainer, cfg, source, start, progress.todo):
            step = progress.start + len(progress.losses) + 1
            want = step if writer is not None and writer.due(step) else -1
            if want != held:
                due.assign(want)
                held = want
            loss = float(_train(trainer, cfg)(images, labels))
            progress.step_done(loss, lr)
            if after_step is None:
                continue
            if held != -1:  # an eval's forward passes record no training summaries
                due.assign(-1)
                held = -1
            if after_step(step, loss):
                break
    return progress.losses, progress.meter


def _train(trainer: Trainer, cfg: Config):
    """The step function: synthetic batches already live on the replicas."""
    return trainer.steps.train_on_replicas if cfg.data.use_synthetic_data else trainer.steps.train


def _batches(trainer: Trainer, cfg: Config, source, start: int, todo: int):
    """The training batches: one synthetic batch on the replicas, reused, or
    the input pipeline from ``start``."""
    if cfg.data.use_synthetic_data:
        batch = steps.synthetic_batches(
            trainer.strategy, cfg.data.batch_size, source, cfg.data.seed, trainer.preprocess
        )
        for _ in range(todo):
            yield batch
    else:
        global_batch = cfg.data.batch_size * cfg.devices.num_towers
        ds = pipeline.train_dataset(
            source,
            global_batch,
            cfg.data.seed,
            start,
            augment=data.augments(cfg.data),
            preprocess=trainer.preprocess,
        )
        yield from ds.take(todo)


def evaluate(trainer: Trainer, source) -> Tuple[float, Dict[str, Optional[float]]]:
    """Test-set accuracy, with the weights' moving averages if there are any,
    and the user's eval metrics fed each batch's labels and logits."""
    correct = total = 0
    fed = trainer.metrics
    if fed is not None:
        fed.reset()
    averaged = trainer.averages.swapped_in() if trainer.averages else contextlib.nullcontext()
    with averaged:
        for images, labels in pipeline.eval_dataset(
            source, pipeline.EVAL_BATCH, trainer.preprocess
        ):
            c, n, logits = trainer.steps.eval(images, labels)
            correct, total = correct + int(c), total + int(n)
            if fed is not None:
                fed.update(labels.numpy(), logits.numpy())
    return correct / max(total, 1), fed.result() if fed is not None else {}


def variable_devices(variables) -> Dict[str, int]:
    """Copies of the model's variables per device (one per replica)."""
    counts: Dict[str, int] = {}
    for var in variables:
        if not hasattr(var, "device"):  # a Keras 3 variable wraps the tf.Variable
            var = var.value
        for component in getattr(var, "values", (var,)):
            dev = devices.canonical(component.device)
            counts[dev] = counts.get(dev, 0) + 1
    return counts
