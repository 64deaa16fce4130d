"""Trains a model the TF1 way: a graph, a session, towers on several devices,
parameter servers, or a ps/worker cluster on TensorFlow's gRPC runtime.

    python -m tf1_train.main --num_gpus=2                    # lenet5 on the embedded digits
    python -m tf1_train.main --flagfile=flags/resnet20_cifar10.flags --data_dir=DIR
    python -m tf1_train.main --model=my_package.my_model:build --num_gpus=2

Checkpoints, TensorBoard events and run_summary.json go to --train_dir; rerun
the same command to resume. The same flags drive the TF2 twin
(python -m tf1_train.tf2.main). Docs: README.md and docs/ in the repository.
"""

# For developers: the only module that defines or reads absl flags
# (docs/PORTING.md P20). TensorFlow is imported inside ``main`` after the
# environment is set, so log levels and CUDA's device order take effect.

from __future__ import annotations

import dataclasses
import os
import sys
import time
from typing import NoReturn

from absl import app, flags

from tf1_train import config as cfglib
from tf1_train import env, flag_errors, models, paths, warm_start
from tf1_train import variable_update as update_modes
from tf1_train.errors import (
    EXIT_BAD_INPUT,
    EXIT_CLUSTER,
    EXIT_DIVERGED,
    EXIT_RUN_FAILED,
    ClusterError,
    RunFailed,
    TrainingDiverged,
    UserError,
    hard_exit,
    signal_status,
)

F = flags.FLAGS

# Model and data.
flags.DEFINE_string(
    "model",
    "lenet5",
    f"Model: {', '.join(models.BUILT_IN)}, or your own as package.module:function.",
)
flags.DEFINE_string(
    "tf2_model", "", "TF2 twin of a --model=package.module:function: package.module:Class."
)
flags.DEFINE_bool(
    "v1",
    False,
    "Your code (--model, --loss, ...) is in TF 1.x's names: import tensorflow means the v1 "
    "API in the files under the working directory, and tf.contrib is served, as python -m "
    "tf1_train.compat --v1 runs them (TF1 path only).",
)
flags.DEFINE_string(
    "preprocess",
    "",
    "Your per-example input function, package.module:function: "
    "fn(image in [0,1], label, is_training, seed) -> (image, label).",
)
flags.DEFINE_string(
    "loss", "", "Your data loss, package.module:function: fn(labels, logits) -> loss."
)
flags.DEFINE_string(
    "hooks",
    "",
    "Your tf.compat.v1.train.SessionRunHooks, package.module:function: fn() -> [hook, ...], "
    "called in the training graph (TF1 path only).",
)
flags.DEFINE_string(
    "eval_metrics",
    "",
    "Your eval metrics, package.module:function: fn(labels, logits) -> {name: (value, "
    "update_op)}, an Estimator's eval_metric_ops (tf.compat.v1.metrics), on both paths.",
)
flags.DEFINE_enum("dataset", "digits", cfglib.DATASETS, "Input source.")
flags.DEFINE_string("data_dir", None, "Files of the dataset in its standard format.")
flags.DEFINE_boolean("use_synthetic_data", False, "Random tensors made on each tower's device.")
flags.DEFINE_boolean("augment", True, "cifar10: random pad-4 crop and flip for training.")
flags.DEFINE_integer("batch_size", 32, "Examples per tower per step.")
# Devices and placement.
flags.DEFINE_integer("num_gpus", 1, "Number of towers.")
flags.DEFINE_enum(
    "device",
    "auto",
    cfglib.DEVICES,
    "auto: GPUs if present, else virtual CPU devices; gpu: GPUs or fail.",
)
flags.DEFINE_enum(
    "variable_update", update_modes.DEFAULT, update_modes.NAMES, "How towers share variables."
)
flags.DEFINE_enum(
    "local_parameter_device",
    "cpu",
    cfglib.PARAMETER_DEVICES,
    "parameter_server mode: variables on the CPU, or spread over the towers' GPUs.",
)
flags.DEFINE_boolean("log_device_placement", False, "ConfigProto.log_device_placement.")
flags.DEFINE_boolean("allow_soft_placement", True, "ConfigProto.allow_soft_placement.")
flags.DEFINE_boolean("allow_growth", False, "gpu_options.allow_growth.")
flags.DEFINE_float(
    "gpu_memory_fraction", 0.0, "gpu_options.per_process_gpu_memory_fraction (0: no limit)."
)
flags.DEFINE_boolean("xla", False, "XLA global JIT (ConfigProto optimizer_options).")
flags.DEFINE_integer("inter_op_threads", 0, "inter_op_parallelism_threads (0: TF decides).")
flags.DEFINE_integer("intra_op_threads", 0, "intra_op_parallelism_threads (0: TF decides).")
flags.DEFINE_enum(
    "onednn",
    None,
    cfglib.ONEDNN,
    "oneDNN CPU kernels (TF_ENABLE_ONEDNN_OPTS). Unset: a value in the environment, else on.",
)
# Optimisation.
flags.DEFINE_enum("optimizer", "sgd", cfglib.OPTIMIZERS, "Optimizer.")
flags.DEFINE_float("learning_rate", 0.01, "Initial learning rate.")
flags.DEFINE_float("momentum", 0.9, "Momentum for --optimizer=momentum.")
flags.DEFINE_float("weight_decay", 0.0, "L2 penalty on weights (not biases).")
flags.DEFINE_enum("lr_schedule", "constant", cfglib.LR_SCHEDULES, "Learning-rate schedule.")
flags.DEFINE_list("lr_boundaries", [], "piecewise: steps at which lr *= lr_decay_factor.")
flags.DEFINE_float("lr_decay_factor", 0.1, "piecewise and exponential decay factor.")
flags.DEFINE_integer("lr_decay_steps", 1000, "exponential and polynomial: steps of decay.")
flags.DEFINE_boolean("lr_staircase", False, "exponential: decay in whole steps of lr_decay_steps.")
flags.DEFINE_float("lr_end", 0.0001, "polynomial: learning rate reached at lr_decay_steps.")
flags.DEFINE_float("lr_power", 1.0, "polynomial: power of the decay (1: linear).")
flags.DEFINE_integer(
    "lr_warmup_steps", 0, "Linear warmup: lr x step / N for the first N steps, then the schedule."
)
flags.DEFINE_float("adam_beta1", 0.9, "adam: decay of the first moment.")
flags.DEFINE_float("adam_beta2", 0.999, "adam: decay of the second moment.")
flags.DEFINE_float("adam_epsilon", 1e-8, "adam: epsilon (v1's default; Keras uses 1e-7).")
flags.DEFINE_float("rmsprop_decay", 0.9, "rmsprop: decay of the mean square.")
flags.DEFINE_float("rmsprop_momentum", 0.0, "rmsprop: momentum.")
flags.DEFINE_float("rmsprop_epsilon", 1e-10, "rmsprop: epsilon (v1's default).")
flags.DEFINE_float("adagrad_initial_accumulator", 0.1, "adagrad: initial accumulator value.")
flags.DEFINE_float(
    "gradient_clip_norm", 0.0, "Clip the mean gradient to this global norm (0: off)."
)
flags.DEFINE_float(
    "moving_average_decay",
    0.0,
    "ExponentialMovingAverage of the weights, saved and used for eval (0: off).",
)
# Precision.
flags.DEFINE_enum(
    "precision", "fp32", cfglib.PRECISIONS, "Towers compute in this type; variables stay float32."
)
flags.DEFINE_string("loss_scale", "", "fp16: dynamic (default) or a fixed number >= 1.")
flags.DEFINE_boolean(
    "auto_mixed_precision",
    False,
    "TF1 only: the optimizer through enable_mixed_precision_graph_rewrite (Grappler's rewrite).",
)
# Run.
flags.DEFINE_integer("train_steps", 500, "Global steps to train.")
flags.DEFINE_integer(
    "num_warmup_steps", 10, "Steps left out of throughput (at most train_steps - 1)."
)
flags.DEFINE_integer("display_every", 50, "Progress line cadence, in steps.")
flags.DEFINE_string("train_dir", None, "Output directory (default runs/<timestamp>).")
flags.DEFINE_integer("save_checkpoint_steps", 500, "Checkpoint cadence, in steps.")
flags.DEFINE_integer("save_summary_steps", 100, "TensorBoard summary cadence, in steps.")
flags.DEFINE_integer(
    "summary_verbosity",
    1,
    "TensorBoard events: 0 none; 1 scalars, graph, run metadata, the model's own summaries; "
    "2 also histograms.",
)
flags.DEFINE_integer("eval_every", 0, "Evaluate on the test split every N steps (0: end only).")
flags.DEFINE_string("trace_file", None, "Write a Chrome trace of one step here.")
flags.DEFINE_boolean("placement_report", False, "Print the runtime placement report.")
flags.DEFINE_integer("seed", 0, "Seed for weights, data order and dropout.")
flags.DEFINE_boolean("deterministic", False, "Op determinism: bit-identical reruns.")
flags.DEFINE_string(
    "init_checkpoint",
    "",
    "A fresh run starts from this TF1 checkpoint's model weights (a prefix, or a directory: "
    "its newest); global step and optimizer slots start fresh.",
)
flags.DEFINE_string(
    "init_exclude",
    "",
    "With --init_checkpoint: comma-separated regexes of checkpoint names left at their "
    "initial values (e.g. logits/ for a new class count).",
)
# Between-graph cluster (TF_CONFIG is read when none of the first four is given).
flags.DEFINE_list("ps_hosts", [], "Parameter server tasks, host:port,host:port.")
flags.DEFINE_list("worker_hosts", [], "Worker tasks, host:port,...; worker 0 is the chief.")
flags.DEFINE_string("job_name", "", "This task's job: ps or worker (empty: no cluster).")
flags.DEFINE_integer("task_index", 0, "This task's index within its job.")
flags.DEFINE_boolean(
    "sync_replicas", False, "SyncReplicasOptimizer: one update per step from all workers."
)
flags.DEFINE_integer(
    "operation_timeout_secs", 60, "A cluster op blocked this long (lost task) becomes an error."
)
flags.DEFINE_integer(
    "startup_timeout_secs", 120, "How long a task waits for the parameter servers and the chief."
)


def _int_list(values, flag: str):
    try:
        return tuple(int(v) for v in values)
    except ValueError:
        raise UserError(f"--{flag}: got {','.join(values)}; must be whole numbers") from None


# A config field is set by the flag of the same name, except these. Adding a
# flag takes its definition above and its field in config.py, nothing here.
_FLAG_OF_FIELD = {"num_towers": "num_gpus"}
_NO_FLAG = {"source"}  # ClusterConfig.source: set by cluster.spec.resolve


def _section(cls, f, **given):
    """A config dataclass with every field read from its flag (lists as tuples)."""
    values = dict(given)
    for field in dataclasses.fields(cls):
        if field.name in values or field.name in _NO_FLAG:
            continue
        value = f[_FLAG_OF_FIELD.get(field.name, field.name)].value
        values[field.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def config_from_flags(f=F) -> cfglib.Config:
    """Builds and validates the Config from parsed flags."""
    train_dir = f.train_dir or os.path.join("runs", time.strftime("%Y%m%d-%H%M%S"))
    given = {
        "optimizer": {"lr_boundaries": _int_list(f.lr_boundaries, "lr_boundaries")},
        "run": {"train_dir": train_dir},
    }
    values = {}
    for field in dataclasses.fields(cfglib.Config):
        default = field.default
        if dataclasses.is_dataclass(default):
            values[field.name] = _section(type(default), f, **given.get(field.name, {}))
        else:
            values[field.name] = f[field.name].value
    values["cluster"] = cluster_from_flags(values["cluster"])
    return cfglib.Config(**values).validate()


def cluster_from_flags(flag_cfg: cfglib.ClusterConfig) -> cfglib.ClusterConfig:
    """The cluster flags, or TF_CONFIG when none of them is given."""
    from tf1_train.cluster import spec

    return spec.resolve(flag_cfg, os.environ.get("TF_CONFIG"))


# Exit statuses (errors.py): 2 bad input (UserError), 3 the loss diverged
# (NaN/Inf), 5 out of device memory or disk space (RunFailed); retryable:
# 203 a cluster task lost or not answering in time, 128 + N stopped by
# signal N after saving.


def fail(message: str, status: int = EXIT_BAD_INPUT, hard: bool = False) -> NoReturn:
    """One line on stderr and a non-zero exit status; no traceback.

    ``hard`` skips the interpreter's shutdown: after a lost cluster task,
    TensorFlow's session teardown would wait for that task forever.
    """
    print(f"error: {message}", file=sys.stderr, flush=True)
    if hard:
        hard_exit(status)
    sys.exit(status)


def parse_flags(argv):
    """absl parsing with one-line errors instead of absl's two-line FATAL."""
    try:
        rest = F(argv)
    except flags.Error as e:
        fail(flag_errors.explain(e, lambda name: F[name] if name in F else None, argv))
    if len(rest) > 1:
        fail(f"unexpected argument {rest[1]!r}: all options are --flags (see --helpshort)")
    return rest


def main(argv) -> None:
    del argv
    try:
        cfg = config_from_flags()
        check_paths(cfg)
    except UserError as e:
        fail(str(e))
    env.quiet_tensorflow(cfg.devices.log_device_placement, cfg.cluster.distributed)
    env.choose_onednn(cfg.devices.onednn)
    env.enable_cpu_xla(cfg.devices.xla, cfg.devices.num_towers)
    from tf1_train import devices

    devices.set_cuda_device_order()
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    # The TF1 entry point, and only it, leaves eager mode (PORTING.md P15).
    tf.compat.v1.disable_eager_execution()
    if cfg.v1:  # before the user's code is imported
        from tf1_train.compat.__main__ import enter_v1

        enter_v1(os.getcwd())
    try:
        if cfg.cluster.job_name != "ps":  # a parameter server runs no user code
            models.import_user_code(cfg)
        env.freeze_imports()
        dispatch(cfg)
    except UserError as e:
        fail(str(e))
    except TrainingDiverged as e:
        fail(str(e), EXIT_DIVERGED)
    except ClusterError as e:
        fail(str(e), EXIT_CLUSTER, hard=True)
    except RunFailed as e:
        # A cluster task exits hard too: session teardown may wait on the others.
        fail(str(e), EXIT_RUN_FAILED, hard=cfg.cluster.distributed)


def check_paths(cfg: cfglib.Config) -> None:
    """Before TensorFlow loads, so a bad path is reported at once. A
    parameter server reads and writes no files; of the workers, only the
    chief writes to train_dir."""
    cl, data = cfg.cluster, cfg.data
    if cl.job_name == "ps":
        return
    paths.check_data_dir(data.data_dir, data.dataset, data.use_synthetic_data)
    if cl.job_name != "worker" or cl.is_chief:
        paths.prepare_train_dir(cfg.run.train_dir)
        paths.check_trace_file(cfg.run.trace_file)
        if cfg.run.init_checkpoint:
            warm_start.resolve(cfg.run.init_checkpoint)


def dispatch(cfg: cfglib.Config) -> None:
    """A parameter server, a cluster worker, or a single-process run."""
    if cfg.cluster.job_name == "ps":
        from tf1_train.cluster import server

        sys.exit(server.run_parameter_server(cfg.cluster))
    if cfg.cluster.job_name == "worker":
        from tf1_train.cluster import worker

        result = worker.run(cfg)
        # A cluster task ends hard: the teardown of a session whose peer went
        # away (a ps that missed the "done" token) would wait for it forever.
        hard_exit(signal_status(result.stop_signal) if result.stop_signal else 0)
    from tf1_train import train

    _exit_if_stopped(train.run(cfg))


def _exit_if_stopped(result) -> None:
    """A run stopped by a signal saved its state and exits 128 + the signal's
    number, so a scheduler records "preempted, resume me", not "succeeded"."""
    if result.stop_signal:
        sys.exit(signal_status(result.stop_signal))


def run() -> None:
    """Console-script entry point (``tf1-train``)."""
    app.run(main, flags_parser=parse_flags)


if __name__ == "__main__":
    run()
