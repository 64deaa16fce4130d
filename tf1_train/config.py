"""Frozen configuration for a run, and its validation.

Imports neither absl nor TensorFlow: ``main.py`` turns flags into these
objects, tests build them directly. Each component receives only the part it
needs (``DataConfig`` for input, ``DeviceConfig`` for placement, ...), not the
whole thing.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional, Tuple

from tf1_train.errors import UserError

MODELS = ("mlp", "lenet5", "resnet20", "resnet32", "resnet56")
DATASETS = ("digits", "mnist", "cifar10", "tfrecord")
DEVICES = ("auto", "gpu", "cpu")
VARIABLE_UPDATES = ("parameter_server", "replicated")
PARAMETER_DEVICES = ("cpu", "gpu")
OPTIMIZERS = ("sgd", "momentum", "adam", "rmsprop")
LR_SCHEDULES = ("constant", "piecewise", "exponential")


def _check(ok: bool, flag: str, message: str) -> None:
    if not ok:
        raise UserError(f"--{flag}: {message}")


def _choice(value: str, flag: str, choices: Tuple[str, ...]) -> None:
    _check(value in choices, flag, f"got {value!r}; valid: {', '.join(choices)}")


def _positive_int(value: int, flag: str) -> None:
    _check(value >= 1, flag, f"got {value}; must be a whole number >= 1")


@dataclasses.dataclass(frozen=True)
class DataConfig:
    """What to read and how to batch it."""

    dataset: str = "digits"
    data_dir: Optional[str] = None
    use_synthetic_data: bool = False
    batch_size: int = 32  # per tower
    augment: bool = True  # random crop + flip for cifar10 training data
    seed: int = 0

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


@dataclasses.dataclass(frozen=True)
class DeviceConfig:
    """Towers, where variables live, and the session's ConfigProto options."""

    num_towers: int = 1
    device: str = "auto"
    variable_update: str = "parameter_server"
    local_parameter_device: str = "cpu"
    log_device_placement: bool = False
    allow_soft_placement: bool = True
    allow_growth: bool = False
    gpu_memory_fraction: float = 0.0  # 0 means "not set"
    xla: bool = False
    inter_op_threads: int = 0  # 0 lets TensorFlow choose
    intra_op_threads: int = 0

    def validate(self) -> None:
        _positive_int(self.num_towers, "num_gpus")
        _choice(self.device, "device", DEVICES)
        _choice(self.variable_update, "variable_update", VARIABLE_UPDATES)
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

    def validate(self) -> None:
        _positive_int(self.train_steps, "train_steps")
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
class Config:
    """Everything a run needs; built by main.py, validated once."""

    model: str = "lenet5"
    data: DataConfig = DataConfig()
    devices: DeviceConfig = DeviceConfig()
    optimizer: OptimizerConfig = OptimizerConfig()
    run: RunConfig = RunConfig(train_dir="runs/default")

    def validate(self) -> Config:
        _choice(self.model, "model", MODELS)
        self.data.validate()
        self.devices.validate()
        self.optimizer.validate()
        self.run.validate()
        return self
