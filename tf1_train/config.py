"""Frozen configuration for a run, and its validation.

Imports neither absl nor TensorFlow: ``main.py`` turns flags into these
objects, tests build them directly. Each component receives only the part it
needs (``DataConfig`` for input, ``DeviceConfig`` for placement, ...), not the
whole thing.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Optional, Tuple

from tf1_train import config_checks as checks
from tf1_train import models
from tf1_train import variable_update as update_modes
from tf1_train.config_cluster import JOBS, ClusterConfig, parse_address  # noqa: F401 (re-exported)

DATASETS = ("digits", "mnist", "cifar10", "tfrecord")
DEVICES = ("auto", "gpu", "cpu")
PARAMETER_DEVICES = ("cpu", "gpu")
ONEDNN = ("on", "off")
OPTIMIZERS = ("sgd", "momentum", "adam", "rmsprop", "adagrad")
LR_SCHEDULES = ("constant", "piecewise", "exponential", "polynomial")
PRECISIONS = ("fp32", "bf16", "fp16")
COMPUTE_TYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


_check = checks.check
_choice = checks.choice
_positive_int = checks.positive_int


@dataclasses.dataclass(frozen=True)
class DataConfig:
    """What to read and how to batch it."""

    dataset: str = "digits"
    data_dir: Optional[str] = None
    use_synthetic_data: bool = False
    batch_size: int = 32  # per tower
    augment: bool = True  # random crop + flip for cifar10 training data
    seed: int = 0
    preprocess: str = ""  # the user's per-example input function: package.module:function

    def validate(self) -> None:
        _choice(self.dataset, "dataset", DATASETS)
        _positive_int(self.batch_size, "batch_size")
        needs_dir = self.dataset in ("mnist", "cifar10", "tfrecord")
        if needs_dir and not self.use_synthetic_data:
            _check(
                bool(self.data_dir),
                "data_dir",
                f"--dataset={self.dataset} needs --data_dir (or --use_synthetic_data)",
            )
        _check(
            not (self.dataset == "digits" and self.data_dir),
            "data_dir",
            "--dataset=digits is embedded and reads no files; drop --data_dir "
            "or choose --dataset=mnist, cifar10 or tfrecord",
        )


@dataclasses.dataclass(frozen=True)
class DeviceConfig:
    """Towers, where variables live, and the session's ConfigProto options."""

    num_towers: int = 1
    device: str = "auto"
    variable_update: str = update_modes.DEFAULT
    local_parameter_device: str = "cpu"
    log_device_placement: bool = False
    allow_soft_placement: bool = True
    allow_growth: bool = False
    gpu_memory_fraction: float = 0.0  # 0 means "not set"
    xla: bool = False
    inter_op_threads: int = 0  # 0 lets TensorFlow choose
    intra_op_threads: int = 0
    onednn: Optional[str] = None  # None: the environment's TF_ENABLE_ONEDNN_OPTS, else on

    def validate(self) -> None:
        _positive_int(self.num_towers, "num_gpus")
        if self.onednn is not None:
            _choice(self.onednn, "onednn", ONEDNN)
        _choice(self.device, "device", DEVICES)
        _choice(self.variable_update, "variable_update", update_modes.NAMES)
        _choice(self.local_parameter_device, "local_parameter_device", PARAMETER_DEVICES)
        fraction = self.gpu_memory_fraction
        _check(
            0.0 <= fraction <= 1.0 and not math.isnan(fraction),
            "gpu_memory_fraction",
            f"got {fraction}; must be in (0, 1], or 0 for no limit",
        )
        _check(
            not (self.allow_growth and fraction > 0),
            "allow_growth",
            "cannot be combined with --gpu_memory_fraction: TensorFlow honours "
            "only one of them; choose growth or a fixed fraction",
        )
        _check(self.inter_op_threads >= 0, "inter_op_threads", "must be >= 0")
        _check(self.intra_op_threads >= 0, "intra_op_threads", "must be >= 0")


@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    """Optimizer, learning-rate schedule and L2 weight decay."""

    optimizer: str = "sgd"
    learning_rate: float = 0.01
    momentum: float = 0.9
    weight_decay: float = 0.0
    lr_schedule: str = "constant"
    lr_boundaries: Tuple[int, ...] = ()  # piecewise: steps where lr is multiplied
    lr_decay_factor: float = 0.1  # piecewise and exponential
    lr_decay_steps: int = 1000  # exponential: lr * factor ** (step / decay_steps)
    lr_staircase: bool = False  # exponential: floor(step / decay_steps)
    lr_end: float = 0.0001  # polynomial: the lr reached at decay_steps
    lr_power: float = 1.0  # polynomial: exponent of (1 - step / decay_steps)
    lr_warmup_steps: int = 0  # lr * step / N for the first N steps, then the schedule
    # The v1 optimizers' defaults, which the built-in runs have always used.
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-8
    rmsprop_decay: float = 0.9
    rmsprop_momentum: float = 0.0
    rmsprop_epsilon: float = 1e-10
    adagrad_initial_accumulator: float = 0.1
    gradient_clip_norm: float = 0.0  # 0: off; else clip_by_global_norm of the mean gradient
    moving_average_decay: float = 0.0  # 0: off; else ExponentialMovingAverage of the weights

    def validate(self) -> None:
        _choice(self.optimizer, "optimizer", OPTIMIZERS)
        _choice(self.lr_schedule, "lr_schedule", LR_SCHEDULES)
        lr = self.learning_rate
        _check(
            math.isfinite(lr) and lr > 0,
            "learning_rate",
            f"got {lr}; must be a finite number > 0",
        )
        _check(
            math.isfinite(self.momentum) and 0 <= self.momentum < 1,
            "momentum",
            f"got {self.momentum}; must be in [0, 1)",
        )
        _check(
            math.isfinite(self.weight_decay) and self.weight_decay >= 0,
            "weight_decay",
            f"got {self.weight_decay}; must be >= 0",
        )
        _check(
            math.isfinite(self.lr_decay_factor) and 0 < self.lr_decay_factor <= 1,
            "lr_decay_factor",
            f"got {self.lr_decay_factor}; must be in (0, 1]",
        )
        _positive_int(self.lr_decay_steps, "lr_decay_steps")
        bounds = self.lr_boundaries
        _check(
            all(b > 0 for b in bounds) and list(bounds) == sorted(set(bounds)),
            "lr_boundaries",
            f"got {list(bounds)}; must be increasing steps > 0",
        )
        if self.lr_schedule == "piecewise":
            _check(
                bool(bounds),
                "lr_boundaries",
                "--lr_schedule=piecewise needs at least one boundary step",
            )
        self._validate_rules()

    def _validate_rules(self) -> None:
        """The legacy training rules: each number in its range, one line each."""
        unit, positive, non_negative = "in [0, 1)", "> 0", ">= 0"
        ranges = {
            unit: lambda x: 0 <= x < 1,
            positive: lambda x: x > 0,
            non_negative: lambda x: x >= 0,
        }
        for field, valid in (
            ("adam_beta1", unit), ("adam_beta2", unit), ("adam_epsilon", positive),
            ("rmsprop_decay", unit), ("rmsprop_momentum", unit),
            ("rmsprop_epsilon", positive), ("adagrad_initial_accumulator", positive),
            ("lr_end", non_negative), ("lr_power", positive),
            ("gradient_clip_norm", non_negative), ("moving_average_decay", unit),
        ):  # fmt: skip
            value = getattr(self, field)
            ok = math.isfinite(value) and ranges[valid](value)
            _check(ok, field, f"got {value}; must be {valid}")
        _check(self.lr_warmup_steps >= 0, "lr_warmup_steps", "must be >= 0 (0: no warmup)")
        _check(
            not self.lr_staircase or self.lr_schedule == "exponential",
            "lr_staircase",
            f"applies to --lr_schedule=exponential only (got {self.lr_schedule})",
        )


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """Run length, cadences, output locations, seeds."""

    train_steps: int = 500
    num_warmup_steps: int = 10  # clipped to train_steps - 1: one step is always measured
    display_every: int = 50
    train_dir: str = ""
    save_checkpoint_steps: int = 500
    save_summary_steps: int = 100
    summary_verbosity: int = 1  # 0: no events; 1: scalars, graph; 2: + histograms
    eval_every: int = 0  # 0: evaluate only at the end
    trace_file: Optional[str] = None
    placement_report: bool = False
    seed: int = 0
    deterministic: bool = False
    init_checkpoint: str = ""  # a fresh run starts from these weights (warm_start.py)
    init_exclude: str = ""  # comma-separated regexes of variables left at their init

    def validate(self) -> None:
        _positive_int(self.train_steps, "train_steps")
        for pattern in self.init_exclude.split(","):
            try:
                re.compile(pattern.strip())
            except re.error as e:
                _check(
                    False, "init_exclude", f"{pattern.strip()!r} is not a regular expression ({e})"
                )
        _check(self.num_warmup_steps >= 0, "num_warmup_steps", "must be >= 0")
        _positive_int(self.display_every, "display_every")
        _positive_int(self.save_checkpoint_steps, "save_checkpoint_steps")
        _positive_int(self.save_summary_steps, "save_summary_steps")
        _check(
            self.summary_verbosity in (0, 1, 2),
            "summary_verbosity",
            f"got {self.summary_verbosity}; valid: 0 (none), 1 (scalars), 2 (+ histograms)",
        )
        _check(self.eval_every >= 0, "eval_every", "must be >= 0 (0: only at end)")
        _check(0 <= self.seed < 2**31, "seed", "must be in [0, 2**31)")
        _check(bool(self.train_dir), "train_dir", "must not be empty")


@dataclasses.dataclass(frozen=True)
class PrecisionConfig:
    """What the towers compute in (variables stay float32) and fp16's loss scale."""

    precision: str = "fp32"
    loss_scale: str = ""  # fp16: "dynamic" (the default) or a number >= 1
    auto_mixed_precision: bool = False  # the optimizer through enable_mixed_precision_graph_rewrite

    def validate(self) -> None:
        _choice(self.precision, "precision", PRECISIONS)
        text = self.loss_scale
        _check(
            text in ("", "dynamic") or _number_at_least_one(text),
            "loss_scale",
            f"got {text!r}; valid: dynamic, or a number >= 1 (e.g. 128)",
        )
        _check(
            not text or self.precision == "fp16",
            "loss_scale",
            f"applies to --precision=fp16 only (got --precision={self.precision}; "
            "bfloat16 has float32's exponent range and needs no loss scaling)",
        )
        _check(
            not (self.auto_mixed_precision and self.precision != "fp32"),
            "auto_mixed_precision",
            "the graph rewrite chooses its own casts; use it with --precision=fp32 "
            f"(got --precision={self.precision})",
        )


def _number_at_least_one(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return math.isfinite(value) and value >= 1


@dataclasses.dataclass(frozen=True)
class Config:
    """Everything a run needs; built by main.py, validated once."""

    model: str = "lenet5"  # a registered name or package.module:function
    tf2_model: str = ""  # the TF2 twin of a user model: package.module:Class
    loss: str = ""  # data loss (labels, logits) -> loss: package.module:function
    hooks: str = ""  # fn() -> [SessionRunHook, ...] (hooks.py): package.module:function
    eval_metrics: str = ""  # fn(labels, logits) -> eval_metric_ops (eval_metrics.py)
    v1: bool = False  # the user's code in TF 1.x's names (compat's --v1; the TF1 path only)
    data: DataConfig = DataConfig()
    devices: DeviceConfig = DeviceConfig()
    optimizer: OptimizerConfig = OptimizerConfig()
    run: RunConfig = RunConfig(train_dir="runs/default")
    precision: PrecisionConfig = PrecisionConfig()
    cluster: ClusterConfig = ClusterConfig()

    def validate(self) -> Config:
        models.lookup(self.model)  # a registered name or package.module:function
        for flag, value in (
            ("tf2_model", self.tf2_model),
            ("preprocess", self.data.preprocess),
            ("loss", self.loss),
            ("hooks", self.hooks),
            ("eval_metrics", self.eval_metrics),
        ):
            _check(
                not value or models.is_import_path(value),
                flag,
                f"got {value!r}; expected package.module:function (the module found "
                "on PYTHONPATH or installed)",
            )
        self.data.validate()
        self.devices.validate()
        self.optimizer.validate()
        self.run.validate()
        self.precision.validate()
        self.cluster.validate()
        if self.cluster.distributed:
            self._validate_for_cluster()
        return self

    def _validate_for_cluster(self) -> None:
        """Options that have no meaning when variables live on parameter servers."""
        modes = [m for m in update_modes.NAMES if update_modes.supports_cluster(m)]
        _check(
            update_modes.supports_cluster(self.devices.variable_update),
            "variable_update",
            "a cluster keeps every variable on its parameter servers; "
            f"use {' or '.join(modes)} ({self.devices.variable_update} is single-process only)",
        )
        _check(
            self.devices.local_parameter_device == "cpu",
            "local_parameter_device",
            "a cluster keeps every variable on its parameter servers; use cpu (the default)",
        )
        _check(
            not self.hooks,
            "hooks",
            "a cluster worker runs no SessionRunHooks; give --hooks to a single-process run",
        )
        pc = self.precision
        _check(
            not (
                self.cluster.sync_replicas and (pc.precision == "fp16" or pc.auto_mixed_precision)
            ),
            "sync_replicas",
            "a loss scale skips overflowing updates per worker; use --precision=bf16 "
            "or fp32 (without --auto_mixed_precision) with --sync_replicas",
        )
