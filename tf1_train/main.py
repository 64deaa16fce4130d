"""Command line of the TF1 path: flags -> Config -> train.run.

The only module that defines or reads absl flags (PITFALLS 20). TensorFlow is
imported inside ``main`` after the environment is set, so log levels and
CUDA's device order take effect.

    python -m tf1_train.main --flagfile=flags/default.flags --num_gpus=2
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from absl import app, flags

from tf1_train import cluster, flag_errors, paths
from tf1_train import config as cfglib
from tf1_train.errors import ClusterError, RunFailed, TrainingDiverged, UserError

F = flags.FLAGS

# Model and data.
flags.DEFINE_enum("model", "lenet5", cfglib.MODELS, "Model to train.")
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
    "variable_update", "parameter_server", cfglib.VARIABLE_UPDATES, "How towers share variables."
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
flags.DEFINE_integer("lr_decay_steps", 1000, "exponential: steps per factor of decay.")
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
    "TensorBoard events: 0 none; 1 scalars, graph, one step's run metadata; 2 also histograms.",
)
flags.DEFINE_integer("eval_every", 0, "Evaluate on the test split every N steps (0: end only).")
flags.DEFINE_string("trace_file", None, "Write a Chrome trace of one step here.")
flags.DEFINE_boolean("placement_report", False, "Print the runtime placement report.")
flags.DEFINE_integer("seed", 0, "Seed for weights, data order and dropout.")
flags.DEFINE_boolean("deterministic", False, "Op determinism: bit-identical reruns.")
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


def config_from_flags(f=F) -> cfglib.Config:
    """Builds and validates the Config from parsed flags."""
    train_dir = f.train_dir
    if not train_dir:
        import time

        train_dir = os.path.join("runs", time.strftime("%Y%m%d-%H%M%S"))
    seed = f.seed
    return cfglib.Config(
        model=f.model,
        data=cfglib.DataConfig(
            dataset=f.dataset,
            data_dir=f.data_dir,
            use_synthetic_data=f.use_synthetic_data,
            batch_size=f.batch_size,
            augment=f.augment,
            seed=seed,
        ),
        devices=cfglib.DeviceConfig(
            num_towers=f.num_gpus,
            device=f.device,
            variable_update=f.variable_update,
            local_parameter_device=f.local_parameter_device,
            log_device_placement=f.log_device_placement,
            allow_soft_placement=f.allow_soft_placement,
            allow_growth=f.allow_growth,
            gpu_memory_fraction=f.gpu_memory_fraction,
            xla=f.xla,
            inter_op_threads=f.inter_op_threads,
            intra_op_threads=f.intra_op_threads,
            onednn=f.onednn,
        ),
        optimizer=cfglib.OptimizerConfig(
            optimizer=f.optimizer,
            learning_rate=f.learning_rate,
            momentum=f.momentum,
            weight_decay=f.weight_decay,
            lr_schedule=f.lr_schedule,
            lr_boundaries=_int_list(f.lr_boundaries, "lr_boundaries"),
            lr_decay_factor=f.lr_decay_factor,
            lr_decay_steps=f.lr_decay_steps,
        ),
        run=cfglib.RunConfig(
            train_steps=f.train_steps,
            num_warmup_steps=f.num_warmup_steps,
            display_every=f.display_every,
            train_dir=train_dir,
            save_checkpoint_steps=f.save_checkpoint_steps,
            save_summary_steps=f.save_summary_steps,
            summary_verbosity=f.summary_verbosity,
            eval_every=f.eval_every,
            trace_file=f.trace_file,
            placement_report=f.placement_report,
            seed=seed,
            deterministic=f.deterministic,
        ),
        cluster=cluster_from_flags(f),
    ).validate()


def cluster_from_flags(f=F) -> cfglib.ClusterConfig:
    """The cluster flags, or TF_CONFIG when none of them is given."""
    flag_cfg = cfglib.ClusterConfig(
        ps_hosts=tuple(f.ps_hosts),
        worker_hosts=tuple(f.worker_hosts),
        job_name=f.job_name,
        task_index=f.task_index,
        sync_replicas=f.sync_replicas,
        operation_timeout_secs=f.operation_timeout_secs,
        startup_timeout_secs=f.startup_timeout_secs,
    )
    return cluster.resolve(flag_cfg, os.environ.get("TF_CONFIG"))


# Exit statuses: 2 bad input (UserError), 3 the loss diverged (NaN/Inf),
# 4 a cluster task was lost or did not answer in time, 5 out of device memory
# or disk space (RunFailed).
EXIT_BAD_INPUT = 2
EXIT_DIVERGED = 3
EXIT_CLUSTER = 4
EXIT_RUN_FAILED = 5


def fail(message: str, status: int = EXIT_BAD_INPUT, hard: bool = False) -> NoReturn:  # noqa: F821
    """One line on stderr and a non-zero exit status; no traceback.

    ``hard`` skips the interpreter's shutdown: after a lost cluster task,
    TensorFlow's session teardown would wait for that task forever.
    """
    print(f"error: {message}", file=sys.stderr, flush=True)
    if hard:
        sys.stdout.flush()
        os._exit(status)
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


def quiet_tensorflow(log_device_placement: bool, cluster_task: bool = False) -> None:
    """Hides TensorFlow's C++ info chatter, unless placement logging is on:
    TF_CPP_MIN_LOG_LEVEL >= 1 also hides the stderr copy of those lines
    (PITFALLS 13). A cluster task also hides C++ warnings: the gRPC runtime
    logs "Local rendezvous is aborting ... Cleanup" for ordinary steps; real
    failures still reach Python as errors. A level the user set is kept."""
    if not log_device_placement:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2" if cluster_task else "1")


def choose_onednn(choice: Optional[str], environ=os.environ) -> str:
    """Sets TF_ENABLE_ONEDNN_OPTS before TensorFlow loads; returns its value.

    TensorFlow 2.21 turns its oneDNN CPU kernels on only for CPUs with
    AVX-512 VNNI/BF16, AVX-VNNI or AMX; elsewhere (AVX2 CPUs such as AMD
    Zen 3) convolutions fall back to Eigen and train several times slower
    (lenet5 on 28x28: 3.7x here). On by default, so a run's speed does not
    depend on which CPU generation the machine has; --onednn=off, or
    TF_ENABLE_ONEDNN_OPTS=0 in the environment, keeps Eigen's kernels (their
    round-off differs slightly from oneDNN's).
    """
    if choice is not None:
        environ["TF_ENABLE_ONEDNN_OPTS"] = "1" if choice == "on" else "0"
    return environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")


def enable_cpu_xla(xla: bool, num_towers: int) -> None:
    """--xla sets the session's global JIT level, which TensorFlow applies to
    GPUs only; on CPU, auto-clustering also needs this TF_XLA_FLAGS switch.

    With several towers on virtual CPU devices XLA's CPU clusters span the
    devices and the step fails ("Multiple CPU devices"), so CPU clustering
    is only switched on for one tower; GPUs cluster per device either way.
    """
    flag = "--tf_xla_cpu_global_jit"
    current = os.environ.get("TF_XLA_FLAGS", "")
    if xla and num_towers > 1:
        print(
            "warning: --xla: CPU auto-clustering stays off with several towers (it "
            "fails across virtual CPU devices); on GPUs it applies per device",
            file=sys.stderr,
            flush=True,
        )
    elif xla and flag not in current:
        os.environ["TF_XLA_FLAGS"] = f"{current} {flag}".strip()


def main(argv) -> None:
    del argv
    try:
        cfg = config_from_flags()
        check_paths(cfg)
    except UserError as e:
        fail(str(e))
    quiet_tensorflow(cfg.devices.log_device_placement, cfg.cluster.distributed)
    choose_onednn(cfg.devices.onednn)
    enable_cpu_xla(cfg.devices.xla, cfg.devices.num_towers)
    from tf1_train import devices

    devices.set_cuda_device_order()
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    # The TF1 entry point, and only it, leaves eager mode (PITFALLS 15).
    tf.compat.v1.disable_eager_execution()
    try:
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


def dispatch(cfg: cfglib.Config) -> None:
    """A parameter server, a cluster worker, or a single-process run."""
    if cfg.cluster.job_name == "ps":
        from tf1_train import server

        sys.exit(server.run_parameter_server(cfg.cluster))
    if cfg.cluster.job_name == "worker":
        from tf1_train import distributed

        distributed.run(cfg)
        return
    from tf1_train import train

    train.run(cfg)


def run() -> None:
    """Console-script entry point (``tf1-train``)."""
    app.run(main, flags_parser=parse_flags)


if __name__ == "__main__":
    run()
