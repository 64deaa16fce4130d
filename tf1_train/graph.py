"""Builds the whole TF1 training graph and returns its handles.

Input -> towers -> gradient aggregation -> optimizer, plus the eval replica
and the ops a session needs around them. Everything lives in one fresh
``tf.Graph`` owned by the caller's ``TrainGraph``.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Dict, List, NamedTuple, Optional, Tuple

import tensorflow as tf

from tf1_train import (
    averages,
    checkpoints,
    data,
    devices,
    eval_metrics,
    kernels,
    model_casts,
    models,
    optim,
    towers,
    variable_update,
)
from tf1_train import precision as precisionlib
from tf1_train.cluster import sync
from tf1_train.config import DataConfig, DeviceConfig, OptimizerConfig, PrecisionConfig
from tf1_train.data import pipeline, synthetic, user_input
from tf1_train.data.source import Source
from tf1_train.models import calls, outputs
from tf1_train.saved_scale import is_loss_scale

v1 = tf.compat.v1


class TrainGraph(NamedTuple):
    """Handles into a built training graph."""

    graph: tf.Graph
    train_op: tf.Operation
    loss: tf.Tensor  # mean over towers of each tower's loss
    tower_losses: List[tf.Tensor]
    learning_rate: tf.Tensor
    global_step: tf.Variable
    init_op: tf.Operation  # global and local variables (synthetic input is local)
    local_init: tf.Operation  # local variables only: run after a restore
    post_init_ops: List[tf.Operation]  # replicated: broadcast tower 0's copy
    input_init: tf.Operation  # (re)starts training input at start_step
    start_step: tf.Tensor  # placeholder fed to input_init
    eval_init: tf.Operation
    eval_correct: tf.Tensor  # correct predictions in one eval batch
    eval_count: tf.Tensor  # examples in that batch
    saved_variables: Dict[str, tf.Variable]  # checkpoint name -> variable
    model_variables: Dict[str, tf.Variable]  # the model's own (no slots, step)
    saver: v1.train.Saver
    mode: variable_update.modes.Mode  # how towers share variables
    variables_finite: tf.Tensor  # all saved float variables free of NaN/Inf
    step_after: Optional[tf.Tensor] = None  # cluster: global step read after the update
    sync: Optional[sync.SyncOps] = None  # --sync_replicas
    loss_terms: Optional[towers.LossTerms] = None  # tower 0's, for the start-up line
    precision: precisionlib.Precision = precisionlib.FP32
    loss_scale_state: Optional[Dict[str, tf.Tensor]] = None  # 'loss_scale', 'skipped_steps'
    # The model's own summary ops (SUMMARIES collection): tower 0's are written
    # (as the multi-GPU tutorials kept one tower's); the others' only counted.
    model_summaries: Tuple[tf.Tensor, ...] = ()
    other_tower_summaries: int = 0
    eval_metrics: Optional[eval_metrics.EvalMetrics] = None  # --eval_metrics


class Worker(NamedTuple):
    """A cluster worker's part of between-graph replication.

    Each worker builds the whole graph: ops without a device run on its own
    task, variables on the parameter servers (the plan's cluster), its input
    is every ``num_workers``-th example starting at ``index``.
    """

    index: int
    num_workers: int
    sync_replicas: bool

    @property
    def device(self) -> str:
        return f"/job:worker/task:{self.index}"


def build(
    model: str,
    source: Source,
    data_cfg: DataConfig,
    dev_cfg: DeviceConfig,
    opt_cfg: OptimizerConfig,
    plan: devices.DevicePlan,
    seed: int,
    worker: Optional[Worker] = None,
    loss: str = "",
    preprocess: Optional[user_input.Preprocess] = None,
    precision_cfg: Optional[PrecisionConfig] = None,
    metrics: str = "",
) -> TrainGraph:
    """Builds the training graph for one process (one worker).

    Args:
      worker: between-graph training: which worker this is (the plan comes
        from ``devices.for_cluster``); None for a single process.
      loss: the user's data loss (package.module:function), or "" for
        softmax cross-entropy.
      preprocess: the user's per-example input function, already checked.
      precision_cfg: what the towers compute in, fp16's loss scale, the
        legacy graph rewrite (precision.py).
      metrics: the user's eval metrics (package.module:function), or "".
    """
    graph = tf.Graph()
    with graph.as_default(), _on_worker(worker):
        v1.set_random_seed(seed)
        with tf.device(plan.param_devices[0]):
            global_step = v1.train.get_or_create_global_step()
        num_towers = len(plan.tower_devices)
        start_step = v1.placeholder_with_default(tf.constant(0, tf.int64), [], name="start_step")
        tower_inputs, input_init = _train_input(
            source, data_cfg, plan, start_step, worker, preprocess
        )
        model_fn = models.checked(models.get_model(model), model)
        loss_fn = models.checked(models.resolve(loss, "loss"), loss, "loss") if loss else None
        mode = variable_update.get(dev_cfg.variable_update)
        pc = precision_cfg or PrecisionConfig()
        # The loss scale is saved state next to the global step (a cluster's
        # workers share it on the ps, as v1's under replica_device_setter).
        precision = precisionlib.make(
            pc.precision, pc.loss_scale, global_step.device, pc.auto_mixed_precision
        )
        made = len(graph.get_operations())
        built = towers.build_towers(
            model_fn,
            tower_inputs,
            source.num_classes,
            plan,
            mode,
            opt_cfg.weight_decay,
            loss_fn,
            precision,
        )
        made_ops = graph.get_operations()[made:]
        model_casts.check_towers(made_ops, precision, f"--model={model}")
        kernels.check(made_ops, precision.compute, f"--model={model}")
        model_vars = {
            name: var
            for name, var in mode.checkpoint_variables().items()
            if var is not global_step and not is_loss_scale(name)
        }
        train_op, lr, opt, ema = _apply(built, opt_cfg, mode, global_step, worker, precision)
        sync_ops = None
        if worker and worker.sync_replicas:
            sync_ops = sync.build_ops(opt, global_step, worker.num_workers, worker.index == 0)
        loss = tf.reduce_mean(tf.stack([t.loss for t in built]), name="mean_loss")
        eval_init, correct, count, user_metrics = _build_eval(
            model_fn,
            source,
            plan.tower_devices[0],
            mode,
            preprocess,
            precisionlib.with_getter(precision, averages.reading_averages(ema)),
            precision,
            metrics,
            loss_fn,
        )
        saved = mode.checkpoint_variables()
        local_init = v1.local_variables_initializer()
        return TrainGraph(
            graph=graph,
            train_op=train_op,
            loss=loss,
            tower_losses=[t.loss for t in built],
            learning_rate=lr,
            global_step=global_step,
            init_op=tf.group(v1.global_variables_initializer(), local_init, name="init"),
            local_init=local_init,
            post_init_ops=mode.post_init_ops(num_towers),
            input_init=input_init,
            start_step=start_step,
            eval_init=eval_init,
            eval_correct=correct,
            eval_count=count,
            saved_variables=saved,
            model_variables=model_vars,
            saver=v1.train.Saver(saved, max_to_keep=checkpoints.MAX_TO_KEEP),
            mode=mode,
            loss_terms=built[0].terms,
            variables_finite=_all_finite(saved.values()),
            step_after=_read_after(train_op, global_step) if worker else None,
            sync=sync_ops,
            precision=precision,
            loss_scale_state=precisionlib.state(precision),
            model_summaries=built[0].summaries,
            other_tower_summaries=sum(len(t.summaries) for t in built[1:]),
            eval_metrics=user_metrics,
        )


def _train_input(source, data_cfg, plan, start_step, worker=None, preprocess=None):
    """(per-tower (float images, labels), the op that (re)starts the input).

    Real data: one pipeline on the host CPU, each global batch split in order
    over the towers. Synthetic data: a local variable on each tower's device,
    nothing to restart. Either way each tower normalises its uint8 slice on
    its own device. With --preprocess the user's function does all of that
    in the input pipeline, and the towers take its output as it is.
    """
    num_towers = len(plan.tower_devices)
    transform = None
    if preprocess is not None:
        transform = functools.partial(
            user_input.apply, preprocess, scale=source.scale, training=True
        )
    if data_cfg.use_synthetic_data:
        inputs = synthetic.tower_inputs(
            source, data_cfg.batch_size, plan.tower_devices, data_cfg.seed, transform
        )
        init = tf.no_op(name="input_init")
    else:
        with tf.device("/device:CPU:0"), tf.name_scope("input"):
            ds = pipeline.train_dataset(
                source,
                data_cfg.batch_size * num_towers,
                data_cfg.seed,
                start_step,
                num_shards=worker.num_workers if worker else 1,
                shard_index=worker.index if worker else 0,
                augment=data.augments(data_cfg),
                preprocess=preprocess,
            )
            iterator = v1.data.make_initializable_iterator(ds)
            images, labels = iterator.get_next()
        inputs, init = pipeline.split_for_towers(images, labels, num_towers), iterator.initializer
    normalized = []
    for i, (images, labels) in enumerate(inputs):
        with tf.device(plan.tower_devices[i]), tf.name_scope(f"normalize_{i}"):
            normalized.append((pipeline.normalize(images, source.scale, bool(preprocess)), labels))
    return normalized, init


def _on_worker(worker: Optional[Worker]):
    """Default device of a cluster worker's ops. Entered after the graph:
    ``tf.device`` acts on whichever graph is the default when it is called."""
    return tf.device(worker.device) if worker else contextlib.nullcontext()


def _apply(built, opt_cfg, mode, global_step, worker, precision=precisionlib.FP32):
    """Aggregates gradients per mode, clips their mean (--gradient_clip_norm)
    and applies them once per step, then the weights' moving averages
    (--moving_average_decay): (train_op, learning rate, optimizer, averager).
    With a loss scale the mean is unscaled first and the update skipped on
    a non-finite gradient (precision.py)."""
    with tf.device(global_step.device):
        lr = optim.learning_rate(opt_cfg, global_step)
    opt = precisionlib.rewrite(optim.make_optimizer(opt_cfg, lr), precision)
    grads_and_vars, finite = precisionlib.unscale(mode.aggregate(built), precision)
    grads_and_vars = mode.clip(grads_and_vars, opt_cfg.gradient_clip_norm)
    ema = averages.make(opt_cfg.moving_average_decay, global_step)
    averaged = averages.averaged(grads_and_vars, mode) if ema else []
    synced = bool(worker and worker.sync_replicas)
    if synced:  # the chief's aggregated update applies the averages
        opt = sync.wrap(opt, worker.num_workers, ema, averaged)
    update_ops = [op for t in built for op in t.update_ops]
    update_ops += mode.moving_average_updates(built)
    with tf.control_dependencies(update_ops):
        if finite is not None:
            train_op = precisionlib.apply_or_skip(
                lambda: opt.apply_gradients(grads_and_vars), finite, precision, global_step
            )
        elif precision.auto is not None:  # the wrapped optimizer may skip: the step advances
            train_op = precisionlib.then_step(opt.apply_gradients(grads_and_vars), global_step)
        else:
            train_op = opt.apply_gradients(grads_and_vars, global_step=global_step)
    if ema and not synced:
        train_op = averages.apply_after(ema, train_op, averaged)
    return train_op, lr, opt, ema


def _read_after(train_op, global_step) -> tf.Tensor:
    """The global step read once this step's update (or, in sync mode, its
    token) is through: at least this worker's step, maybe others' too."""
    with tf.control_dependencies([train_op]), tf.device(global_step.device):
        return tf.identity(global_step.read_value(), name="step_after")


def _all_finite(variables) -> tf.Tensor:
    """True if no saved float variable holds NaN/Inf: checked before every
    save, so a checkpoint is never written from a diverged state, even when
    the step's loss (computed before its update) was still finite. Each
    check runs next to its variable: only booleans cross devices."""
    with tf.name_scope("variables_finite"):
        checks = []
        for var in variables:
            if var.dtype.base_dtype.is_floating:
                with v1.colocate_with(var):
                    checks.append(tf.reduce_all(tf.math.is_finite(var.read_value())))
        return tf.reduce_all(tf.stack(checks)) if checks else tf.constant(True)


def _build_eval(
    model_fn, source, device, mode, preprocess=None, custom_getter=None, precision=None,
    metrics="", loss_fn=None,
):  # fmt: skip
    """A forward-only replica on tower 0's device, reading the test split
    (and the weights' moving averages, when ``custom_getter`` reads them),
    and the user's eval metrics of its float32 logits on the host CPU
    (``loss_fn``: --loss, for a metric's per_example_loss)."""
    with tf.device("/device:CPU:0"), tf.name_scope("eval_input"):
        ds = pipeline.eval_dataset(source, pipeline.EVAL_BATCH, preprocess)
        iterator = v1.data.make_initializable_iterator(ds)
        images, labels = iterator.get_next()
    with tf.device(device), mode.eval_scope(custom_getter), tf.name_scope("eval"):
        model_input = pipeline.normalize(images, source.scale, bool(preprocess))
        if precision is not None:
            model_input = precisionlib.to_compute(model_input, precision)
        out = calls.call_model(model_fn, model_input, False, source.num_classes, labels)
        logits = outputs.logits_of(out)
        predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
        correct = tf.reduce_sum(tf.cast(tf.equal(predictions, labels), tf.int64))
        count = tf.size(labels, out_type=tf.int64)
    user_metrics = None
    if metrics:
        with tf.device("/device:CPU:0"):
            user_metrics = eval_metrics.build(metrics, labels, tf.cast(logits, tf.float32), loss_fn)
    return iterator.initializer, correct, count, user_metrics
