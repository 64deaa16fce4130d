"""A run: build the graph, restore or initialise, train, write run_summary.json.

The steps themselves are in ``loop.py``; checkpoints, signals, summaries,
traces and the placement report each have their own module.
"""

from __future__ import annotations

import math
import os
import time
from typing import Dict, NamedTuple, Sequence

import tensorflow as tf

from tf1_train import (
    checkpoints,
    data,
    devices,
    eval_metrics,
    graph,
    hooks,
    loop,
    prelude,
    report,
    signals,
    summaries,
    warm_start,
)
from tf1_train import precision as precisionlib
from tf1_train.config import Config
from tf1_train.data import user_input
from tf1_train.errors import RunFailed, TrainingDiverged

v1 = tf.compat.v1


class RunResult(NamedTuple):
    """What a finished run measured (``summary`` is run_summary.json)."""

    summary: Dict
    losses: Sequence[float]  # mean tower loss of every step this process ran
    stop_signal: str | None = None  # 'SIGTERM' or 'SIGINT' when one stopped the run


def run(cfg: Config, gpus_found: int | None = None) -> RunResult:
    """Trains per ``cfg`` (resuming from train_dir's newest checkpoint) and
    writes ``<train_dir>/run_summary.json``.

    Returns normally when --train_steps is reached or on SIGTERM/SIGINT
    (``summary['stopped_by']`` says which).

    Args:
      cfg: a validated Config.
      gpus_found: GPU count to plan for; None asks TensorFlow.

    Raises:
      UserError: bad input (unusable train_dir, stranger's checkpoint, ...),
        or another run holds train_dir's lock.
      TrainingDiverged: the loss became NaN or Inf (summary written first).
      RunFailed: out of memory or disk space (the last checkpoint is intact).
    """
    with prelude.writing_train_dir(cfg):
        return _run(cfg, gpus_found)


def _run(cfg: Config, gpus_found: int | None) -> RunResult:
    wall_start = time.perf_counter()
    plan, source, g = build(cfg, gpus_found)
    with g.graph.as_default():  # the user's hooks find the global step, and begin()
        user_hooks = hooks.load(cfg.hooks)
    print_startup(cfg, plan, g)
    if user_hooks:
        print(user_hooks.describe(), flush=True)
    with signals.graceful_stop() as stop:
        with data.read_errors(source):
            outcome, restored = _train(cfg, plan, g, stop, user_hooks)
        summary = make_summary(cfg, plan, outcome, restored, wall_start)
        write_summary(cfg.run.train_dir, summary, outcome.checkpoint)
    return finish(cfg, summary, outcome, stop_signal=stop.signal_name)


def finish(
    cfg: Config,
    summary: Dict,
    outcome: loop.Outcome,
    wrote_summary: bool = True,
    stop_signal: str | None = None,
) -> RunResult:
    """The run's last lines; raises TrainingDiverged after a NaN/Inf stop.

    ``wrote_summary`` is False on a cluster's non-chief workers: only the
    chief writes run_summary.json. ``stop_signal`` is the signal that
    stopped the run, if one did (main.py exits 128 + its number).
    """
    _print_end(cfg, outcome, wrote_summary)
    if outcome.stopped_by == "diverged":
        raise TrainingDiverged(
            f"{outcome.diverged}: training stopped "
            "and that state was not saved; last good checkpoint: "
            f"{outcome.checkpoint or 'none was saved'}; try a lower --learning_rate"
        )
    stopped = stop_signal if outcome.stopped_by == "signal" else None
    return RunResult(summary, outcome.losses, stopped)


def build(cfg: Config, gpus_found: int | None, worker: graph.Worker | None = None):
    """Plans devices, loads the data and builds the graph: (plan, source, TrainGraph).

    A cluster worker's plan puts its towers on its task and the variables
    on the parameter servers; it reads one shard of the training set.
    """
    source = prelude.start(cfg, num_shards=worker.num_workers if worker else 1)
    if gpus_found is None:
        gpus_found = devices.count_gpus()
    plan = devices.plan_devices(cfg.devices, gpus_found)
    prelude.warn_about_devices(plan)
    if worker is not None:
        cl = cfg.cluster
        plan = devices.for_cluster(plan, cl.ps_hosts, cl.worker_hosts, cl.task_index)
    preprocess = user_input.load(cfg.data.preprocess, source.image_shape, cfg.data.seed)
    g = graph.build(
        cfg.model,
        source,
        cfg.data,
        cfg.devices,
        cfg.optimizer,
        plan,
        cfg.run.seed,
        worker,
        loss=cfg.loss,
        preprocess=preprocess,
        precision_cfg=cfg.precision,
        metrics=cfg.eval_metrics,
    )
    return plan, source, g


def _train(cfg: Config, plan: devices.DevicePlan, g: graph.TrainGraph, stop, user_hooks):
    """Restores or initialises, starts the input at the restored step, runs
    the loop with the user's hooks: (Outcome, Restored)."""
    with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as sess:
        fresh = warm_start.starter(cfg.run.init_checkpoint, cfg.run.init_exclude)
        restored = checkpoints.restore_or_init(sess, g, cfg.run.train_dir, fresh)
        # The writer comes after the restore: a refused checkpoint leaves
        # someone else's train_dir untouched.
        writer = open_writer(cfg, g, restored, cfg.run.summary_verbosity)
        # Nothing may add ops from here on: a graph that grows every step is
        # the classic TF1 memory leak, and finalize() turns it into an error.
        g.graph.finalize()
        try:
            # The input pipeline is a function of (seed, step): exact resume.
            sess.run(g.input_init, {g.start_step: restored.step})
            user_hooks.after_create_session(sess)
            outcome = loop.TrainLoop(
                sess, g, cfg, plan, writer, stop, restored, hooks=user_hooks
            ).run()
        finally:
            writer.close()
    return outcome, restored


def open_writer(
    cfg: Config, g: graph.TrainGraph, restored: checkpoints.Restored, verbosity: int
) -> summaries.EventWriter:
    """The TensorBoard writer of a (re)started run, once the model is
    restored: says where it resumed from and marks the restart in the events
    so TensorBoard drops the steps a crashed run wrote after that point."""
    ops = list(g.model_summaries) if verbosity >= 1 else []
    if verbosity >= 2:
        ops += summaries.build_histograms(g.graph, g.model_variables)
    if g.model_summaries:
        chief = verbosity > 0 or cfg.run.summary_verbosity == 0
        print(
            summaries.describe_model_summaries(
                len(g.model_summaries), g.other_tower_summaries, verbosity, chief
            ),
            flush=True,
        )
    op = summaries.merged(g.graph, ops)
    writer = summaries.EventWriter(cfg.run.train_dir, g.graph, verbosity, op)
    if restored.path:
        print(f"resuming from {restored.path} (global step {restored.step})", flush=True)
        if cfg.run.init_checkpoint:
            print("--init_checkpoint not used: train_dir holds a checkpoint to resume", flush=True)
        writer.restarted(restored.step)
    return writer


def make_summary(
    cfg: Config,
    plan: devices.DevicePlan,
    outcome: loop.Outcome,
    restored: checkpoints.Restored,
    wall_start: float,
) -> Dict:
    """run_summary.json: the keys every route writes (report.run_summary),
    then the TF1 run's own (``wall_start`` is the run's time.perf_counter()
    at entry)."""
    losses = outcome.losses
    where = outcome.placement
    summary = report.run_summary(
        cfg=cfg,
        tower_devices=plan.tower_devices,
        variable_update=cfg.devices.variable_update,
        variable_devices=where.variable_devices() if where else {},
        global_step=outcome.global_step,
        final_loss=losses[-1] if losses and math.isfinite(losses[-1]) else None,
        test_accuracy=outcome.test_accuracy,
        examples_per_sec=outcome.examples_per_sec,
        median_step_rate=outcome.median_step_rate,
        wall_start=wall_start,
        first_step_done=outcome.first_step_done,
        stopped_by=outcome.stopped_by,
        tf_version=tf.__version__,
    )
    summary.update(
        resumed_from_step=restored.step,
        checkpoint=outcome.checkpoint,
        placement=where.to_json() if where else None,
    )
    if outcome.loss_scale is not None:
        summary.update(outcome.loss_scale)
    if outcome.eval_metrics is not None:
        summary["eval_metrics"] = outcome.eval_metrics
    return summary


def write_summary(train_dir: str, summary: Dict, checkpoint: str | None) -> None:
    """run_summary.json, or one line saying why it could not be written."""
    path = os.path.join(train_dir, "run_summary.json")
    try:
        report.write_json_atomic(path, summary)
    except OSError as e:
        kept = f"checkpoint {checkpoint} is intact" if checkpoint else "no checkpoint was saved"
        why, advice = checkpoints.explain_write_error(e.strerror or str(e))
        raise RunFailed(
            f"--train_dir={train_dir}: could not write {path} ({why}); {advice} ({kept})"
        ) from None


def _print_end(cfg: Config, outcome: loop.Outcome, wrote_summary: bool) -> None:
    """Placement report if asked, then the run's last line on stdout."""
    if cfg.run.placement_report and outcome.placement:
        print("\n".join(outcome.placement.lines()))
    summary_path = os.path.join(cfg.run.train_dir, "run_summary.json")
    if not wrote_summary:
        summary_path = "the chief writes run_summary.json"
    step = outcome.global_step
    if outcome.stopped_by == "hook":
        print(f"stopped at step {step} by a hook: saved {outcome.checkpoint}")
    if outcome.stopped_by == "signal":
        saved = f"saved {outcome.checkpoint}" if wrote_summary else "the chief keeps the state"
        print(f"stopped at step {step}: {saved}; rerun the same command to resume")
    print(f"done: global step {step}  ({summary_path})", flush=True)


def print_startup(cfg: Config, plan: devices.DevicePlan, g: graph.TrainGraph) -> None:
    print(f"tf1_train  TensorFlow {tf.__version__}", flush=True)
    print(
        f"devices: {plan.gpus_found} GPU(s) found; "
        f"model {cfg.model} on {cfg.data.dataset}, batch {cfg.data.batch_size}/tower, "
        f"variable_update {cfg.devices.variable_update}"
    )
    for line in g.mode.describe(plan):
        print(line)
    print(describe_loss(cfg, g.loss_terms))
    if g.precision.mixed:
        print(precisionlib.describe(g.precision))
    if cfg.data.preprocess:
        print(
            f"input: --preprocess={cfg.data.preprocess} makes each example "
            "(the built-in normalisation and augmentation are off)"
        )
    if g.eval_metrics is not None:
        print(eval_metrics.describe(cfg.eval_metrics, g.eval_metrics))
    print(f"train_dir: {cfg.run.train_dir}", flush=True)


def describe_loss(cfg: Config, terms) -> str:
    """The start-up line naming every loss term tower 0 found, so a term the
    user expected and does not see is noticed before the first step."""
    data = f"--loss={cfg.loss}" if cfg.loss else "softmax cross-entropy"
    if terms.end_points:
        data += f" (given the model's end_points: {', '.join(terms.end_points)})"
    parts = [f"loss per tower: {data}"]
    if terms.regularization:
        parts.append(f"{len(terms.regularization)} REGULARIZATION_LOSSES term(s)")
    if terms.collected:
        names = sorted({t.op.name.split("/")[-1] for t in terms.collected})
        parts.append(f"{len(terms.collected)} 'losses' collection term(s) ({', '.join(names)})")
    if terms.weight_decay is not None:
        parts.append(f"--weight_decay={cfg.optimizer.weight_decay} x L2 of the kernels")
    line = " + ".join(parts)
    half = [t for t in terms.regularization + terms.collected if t.dtype != tf.float32]
    if half:  # computed from the casts its get_variable returned (--precision, its own getter)
        types = " and ".join(sorted({t.dtype.name for t in half}))
        line += (
            f"; the model computes {len(half)} of these terms in {types} (from the weights' "
            "casts), tf1_train sums them in float32"
        )
    return line
