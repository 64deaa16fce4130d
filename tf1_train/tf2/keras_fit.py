"""The Keras ``Model.fit`` route, for the models Keras layers can express.

Layer names match the TF1 scopes (``conv1``, ``fc3``, ``logits``); kernels
and biases map to ``<layer>/weights`` and ``<layer>/biases``, so TF1 weights
load by name. Keras's own optimizers are used, configured to match the v1
update where the formulas allow: Adam's betas and epsilon come from the flags
(whose epsilon default is v1's 1e-8; Keras defaults to 1e-7); SGD with
momentum equals v1 Momentum for a constant learning rate; Adagrad takes
epsilon 0 (v1 has none). What Keras cannot express exactly (RMSProp, weight
averages, clipping the mean of several replicas' gradients) is refused in
one line. XLA is switched off (``jit_compile=False``): fusion changes
rounding, and this route exists to be compared.

The run ends with a checkpoint in the TF1 layout (the weights by their TF1
names, the optimizer's state under v1's slot names: keras_slots.py, and
``global_step``), also when a SIGTERM/SIGINT stops it after a step, and
never of NaN/Inf weights; the TF1 path and the custom loop resume it. This
route does not resume (Keras keeps its own optimizer state): a train_dir
that already holds a checkpoint is refused before training, not trained
over from step 0.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Dict, List, Tuple

import keras
import numpy as np
import tensorflow as tf

from tf1_train import models
from tf1_train.config import OptimizerConfig, PrecisionConfig
from tf1_train.errors import TrainingDiverged, UserError
from tf1_train.models import calls


def mlp_layers() -> List[keras.layers.Layer]:
    """The hidden layers of tf1_train.models.mlp, as Keras layers."""
    return [
        keras.layers.Flatten(),
        keras.layers.Dense(256, "relu", name="fc1"),
        keras.layers.Dense(128, "relu", name="fc2"),
    ]


def lenet5_layers() -> List[keras.layers.Layer]:
    """The hidden layers of tf1_train.models.lenet5, as Keras layers."""
    layers = keras.layers
    return [
        layers.Conv2D(6, 5, padding="same", activation="relu", name="conv1"),
        layers.MaxPooling2D(2, padding="same"),
        layers.Conv2D(16, 5, padding="same", activation="relu", name="conv2"),
        layers.MaxPooling2D(2, padding="same"),
        layers.Flatten(),
        layers.Dense(120, "relu", name="fc3"),
        layers.Dense(84, "relu", name="fc4"),
    ]


def build_model(
    name: str, image_shape: Tuple[int, int, int], num_classes: int, scale: float
) -> keras.Model:
    """A Keras model computing what the TF1 model ``name`` computes, from
    uint8 pixels (``Rescaling`` by 1/scale is its first layer)."""
    spec = models.lookup(name)
    if spec.keras is None:
        raise UserError(
            f"--model={name}: the Keras fit route supports {', '.join(models.with_keras())}"
        )
    if calls.takes_labels(models.get_model(name)):
        raise UserError(
            f"--model={name}: takes labels, which Keras' fit never gives a model's layers: "
            "use --route=custom with a twin whose __call__ takes labels=None"
        )
    body = models.resolve(spec.keras, "model")()
    inputs = keras.Input(shape=image_shape)
    x = keras.layers.Rescaling(1.0 / scale)(inputs)
    for layer in body + [keras.layers.Dense(num_classes, name="logits")]:
        x = layer(x)
    if x.dtype != "float32":  # a mixed policy: softmax and loss in float32
        x = keras.layers.Activation("linear", dtype="float32", name="logits_float32")(x)
    return keras.Model(inputs, x, name=name)


POLICIES = {"fp32": "float32", "bf16": "mixed_bfloat16", "fp16": "mixed_float16"}


@contextlib.contextmanager
def dtype_policy(precision: str):
    """Keras' mixed policy while the model is built (float32 variables,
    layers computing in the type), the global policy restored after."""
    before = keras.config.dtype_policy()
    keras.config.set_dtype_policy(POLICIES[precision])
    try:
        yield
    finally:
        keras.config.set_dtype_policy(before)


def loss_scaled(opt: keras.optimizers.Optimizer, pc: PrecisionConfig):
    """fp16: Keras' LossScaleOptimizer (dynamic only: it has no fixed scale)."""
    if pc.precision != "fp16":
        return opt
    if pc.loss_scale not in ("", "dynamic"):
        raise UserError(
            f"--loss_scale={pc.loss_scale}: Keras' LossScaleOptimizer is dynamic only; "
            "use --loss_scale=dynamic or --route=custom"
        )
    return keras.optimizers.LossScaleOptimizer(opt)


def variables_by_tf1_name(model: keras.Model) -> Dict[str, keras.Variable]:
    out = {}
    for layer in model.layers:
        if getattr(layer, "kernel", None) is not None:
            out[f"{layer.name}/weights"] = layer.kernel
            out[f"{layer.name}/biases"] = layer.bias
    return out


def make_optimizer(cfg: OptimizerConfig, num_replicas: int = 1) -> keras.optimizers.Optimizer:
    """The Keras optimizer doing the v1 update, or one error line naming the
    flag it cannot express exactly."""
    if cfg.lr_schedule != "constant" or cfg.weight_decay > 0 or cfg.lr_warmup_steps > 0:
        raise UserError(
            "the Keras fit route is compared with constant --lr_schedule, no --lr_warmup_steps "
            "and --weight_decay=0 only; use --route=custom"
        )
    if cfg.moving_average_decay > 0:
        raise UserError(
            "--moving_average_decay: Keras's use_ema has no num_updates warm-up and "
            "is not saved under TF1 names; use --route=custom"
        )
    clip = {}
    if cfg.gradient_clip_norm > 0:
        # Keras clips before its all-reduce: each replica's share, not the mean.
        if num_replicas > 1:
            raise UserError(
                "--gradient_clip_norm: Keras fit clips each replica's gradient before "
                "summing them, not the mean gradient; use --route=custom or --num_gpus=1"
            )
        clip = {"global_clipnorm": cfg.gradient_clip_norm}
    lr = cfg.learning_rate
    if cfg.optimizer == "sgd":
        return keras.optimizers.SGD(lr, **clip)
    if cfg.optimizer == "momentum":
        return keras.optimizers.SGD(lr, momentum=cfg.momentum, **clip)
    if cfg.optimizer == "adam":
        # Keras computes ``1 - beta`` in float64 and casts it; v1's kernel
        # subtracts in float32 (1 - 0.999f = 0.00099998713, not 0.001): the
        # float32 value of beta makes Keras's difference v1's, bit for bit.
        betas = {"beta_1": _as_float32(cfg.adam_beta1), "beta_2": _as_float32(cfg.adam_beta2)}
        return keras.optimizers.Adam(lr, epsilon=cfg.adam_epsilon, **betas, **clip)
    if cfg.optimizer == "adagrad":
        # Keras adds epsilon under the square root; v1 adds nothing.
        initial = cfg.adagrad_initial_accumulator
        return keras.optimizers.Adagrad(lr, initial, epsilon=0.0, **clip)
    raise UserError("--optimizer=rmsprop: v1 RMSProp starts its mean square at 1, Keras at 0")


def _as_float32(x: float) -> float:
    return float(np.float32(x))


def compile_model(
    model: keras.Model,
    cfg: OptimizerConfig,
    num_replicas: int = 1,
    precision: PrecisionConfig | None = None,
) -> keras.Model:
    model.compile(
        optimizer=loss_scaled(make_optimizer(cfg, num_replicas), precision or PrecisionConfig()),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        jit_compile=False,
    )
    return model


class PerStepLoss(keras.callbacks.Callback):
    """Records each step's loss: Keras logs a running mean over the epoch, so
    the metrics are reset before every batch."""

    def __init__(self):
        super().__init__()
        self.losses: List[float] = []

    def on_train_batch_begin(self, batch, logs=None):
        self.model.reset_metrics()

    def on_train_batch_end(self, batch, logs=None):
        self.record(float(logs["loss"]))

    def record(self, loss: float) -> None:
        self.losses.append(loss)


def fit(model: keras.Model, batches: tf.data.Dataset, steps: int) -> List[float]:
    """Trains ``steps`` global batches; returns the loss of each."""
    recorder = PerStepLoss()
    model.fit(
        batches, epochs=1, steps_per_epoch=steps, verbose=0, shuffle=False, callbacks=[recorder]
    )
    return recorder.losses


class _ProgressCallback(PerStepLoss):
    """Per-step losses into the shared progress lines and throughput meter;
    after a SIGTERM/SIGINT, fit stops after that step (``stop``)."""

    def __init__(self, progress, learning_rate: float, stop):
        super().__init__()
        self.progress, self.lr, self.stop = progress, learning_rate, stop

    def record(self, loss: float) -> None:
        self.progress.step_done(loss, lambda: self.lr)

    def on_train_batch_end(self, batch, logs=None):
        super().on_train_batch_end(batch, logs)
        if self.stop.requested and not self.model.stop_training:
            step = int(self.model.optimizer.iterations.numpy())
            print(
                f"{self.stop.signal_name} received: stopping after step {step} "
                "(a second signal ends the process at once)",
                flush=True,
            )
            self.model.stop_training = True


def run(cfg, gpus_found=None):
    """``python -m tf1_train.tf2.main --route=keras``: the same run through fit."""
    from tf1_train import prelude
    from tf1_train.tf2.strategy import make_strategy

    wall_start = time.perf_counter()
    source = prelude.start(cfg)
    strategy, plan = make_strategy(cfg.devices, gpus_found)
    prelude.warn_about_devices(plan)
    keras.utils.set_random_seed(cfg.run.seed)  # initial weights follow --seed
    with strategy.scope(), dtype_policy(cfg.precision.precision):
        model = compile_model(
            build_model(cfg.model, source.image_shape, source.num_classes, source.scale),
            cfg.optimizer,
            strategy.num_replicas_in_sync,
            cfg.precision,
        )
    refuse_a_run_to_resume(cfg.run.train_dir)
    return _train_save_evaluate(cfg, model, source, plan, wall_start)


def _train_save_evaluate(cfg, model, source, plan, wall_start):
    """fit, the checkpoint (also after a signal, never of NaN/Inf weights),
    the final eval (not after a signal, as on TF1) and run_summary.json."""
    from tf1_train import data, signals
    from tf1_train.data import pipeline
    from tf1_train.report import run_summary
    from tf1_train.tf2 import train as tf2_train

    writer = tf2_train.scalar_writer(cfg)
    progress = tf2_train.Progress(cfg, 0, writer)
    global_batch = cfg.data.batch_size * cfg.devices.num_towers
    # Synthetic data: the source's own random batches, from a host pipeline.
    ds = pipeline.train_dataset(
        source, global_batch, cfg.data.seed, 0, augment=data.augments(cfg.data)
    )
    with signals.graceful_stop() as stop:
        callback = _ProgressCallback(progress, cfg.optimizer.learning_rate, stop)
        model.fit(
            ds, epochs=1, steps_per_epoch=progress.todo, verbose=0, shuffle=False,
            callbacks=[callback],
        )  # fmt: skip
        step = int(model.optimizer.iterations.numpy())
        saved, diverged = save_trained(cfg.run.train_dir, model, step, cfg.optimizer)
    accuracy = None
    if saved is not None and not stop.requested:
        eval_ds = pipeline.eval_dataset(source, pipeline.EVAL_BATCH)
        accuracy = float(model.evaluate(eval_ds, verbose=0)[1])
        writer.scalars(progress.todo, {"test_accuracy": accuracy})
    elif saved is not None:
        print(
            f"stopped at step {step}: saved {saved}; --route=keras does not resume: "
            "go on with --route=custom or tf1_train.main on this train_dir",
            flush=True,
        )
    writer.close()
    summary = run_summary(
        cfg=cfg,
        tower_devices=plan.tower_devices,
        variable_update="mirrored (keras fit)",
        variable_devices=tf2_train.variable_devices(variables_by_tf1_name(model).values()),
        global_step=step,
        final_loss=progress.losses[-1] if progress.losses else None,
        test_accuracy=accuracy,
        examples_per_sec=progress.meter.overall_rate(),
        median_step_rate=progress.meter.median_step_rate(),
        wall_start=wall_start,
        first_step_done=progress.meter.first_tick,
        stopped_by="diverged" if diverged else "signal" if stop.requested else "train_steps",
        tf_version=tf.__version__,
    )
    summary.update(resumed_from_step=0, checkpoint=saved)
    tf2_train.finish(cfg, summary, accuracy)
    if diverged:
        raise TrainingDiverged(
            f"variables hold NaN or Inf after step {step} (Keras fit trains on through a "
            "NaN loss): that state was not saved; try a lower --learning_rate"
        )
    return tf2_train.RunResult(summary, progress.losses, stop.signal_name)


def refuse_a_run_to_resume(train_dir: str) -> None:
    """One error line, before training, for a train_dir holding a checkpoint."""
    from tf1_train.tf2 import checkpoint

    found = checkpoint.latest(train_dir)
    if found is not None:
        raise UserError(
            f"--train_dir={train_dir}: holds {os.path.basename(found)}, and --route=keras "
            "starts runs from step 0 only; "
            "resume it with --route=custom or tf1_train.main, or give another --train_dir"
        )


def save_trained(train_dir: str, model: keras.Model, step: int, cfg: OptimizerConfig):
    """(the checkpoint written, or None; whether a weight is NaN/Inf): the
    weights by TF1 name, the optimizer's state by v1 slot name and
    global_step, as tf1_train's TF1-layout checkpoints."""
    from tf1_train.tf2 import cadence, checkpoint, keras_slots

    weights = variables_by_tf1_name(model)
    state = {n: v.value for n, v in weights.items()}
    if not cadence.all_finite(state.values()):
        return None, True
    state.update(keras_slots.v1_state(model.optimizer, weights, cfg))
    state["global_step"] = model.optimizer.iterations.value
    saved = checkpoint.save(train_dir, state, step)
    print(f"saved {saved} (the weights, global_step; {keras_slots.describe(cfg)})", flush=True)
    return saved, False
