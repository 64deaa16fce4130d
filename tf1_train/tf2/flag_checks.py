"""Which TF1 flags the TF2 entry point honours, refuses or cannot use.

It takes the TF1 entry point's flags, so a flagfile serves both. A flag the
TF2 path cannot honour is never dropped without a word: one that would make
the run wrong (a ps/worker cluster, SessionRunHooks, the v1 graph rewrite)
is refused in one ``error:`` line; one that only tunes TF1's session or
reports on it (XLA, soft placement, the placement report, the trace) is
named in one ``warning:`` line and the run goes on.
"""

from __future__ import annotations

from typing import List

from tf1_train.config import Config, DeviceConfig, RunConfig
from tf1_train.errors import UserError

_DEVICES, _RUN = DeviceConfig(), RunConfig()


def check(cfg: Config, route: str) -> List[str]:
    """Raises UserError for a flag the route cannot honour; returns the
    warning lines for flags it does not use."""
    _refuse(cfg, route)
    lines = []
    unused = unused_tf1_flags(cfg)
    if unused:
        lines.append(
            f"warning: the TF2 path does not use {', '.join(unused)} (TF1 session and "
            "graph options; MirroredStrategy keeps a copy of every variable on each replica)"
        )
    if route == "keras" and (
        cfg.run.eval_every or cfg.run.save_checkpoint_steps < cfg.run.train_steps
    ):
        lines.append(
            "warning: --route=keras saves and evaluates once, at the end: "
            "--save_checkpoint_steps, --eval_every and resuming are the custom route's "
            "(--route=custom)"
        )
    return lines


def _refuse(cfg: Config, route: str) -> None:
    if cfg.cluster.distributed:
        raise UserError(
            f"--job_name={cfg.cluster.job_name}: a ps/worker cluster is the TF1 entry "
            "point's (python -m tf1_train.main, or tf1_train.launch); the TF2 path trains "
            "in one process"
        )
    if cfg.run.init_checkpoint and route == "keras":
        raise UserError("--init_checkpoint: the TF2 custom route only (--route=custom)")
    if cfg.hooks:
        raise UserError(
            f"--hooks={cfg.hooks}: TF1 only (SessionRunHooks run around a Session's steps); "
            "on the TF2 path use Keras callbacks (--route=keras) or code in the custom loop"
        )
    if cfg.eval_metrics and route == "keras":
        raise UserError(
            f"--eval_metrics={cfg.eval_metrics}: the TF2 custom route only (--route=custom): "
            "Keras evaluate() runs its own compiled metrics"
        )
    if cfg.v1:
        raise UserError(
            "--v1: TF1 only. The TF2 path trains your --tf2_model in TensorFlow 2's names, "
            "and the twin shares the working directory with your TF1 code; to compare them, "
            "python -m tf1_train.port check --v1 runs the TF1 side in its own process"
        )
    if cfg.precision.auto_mixed_precision:
        raise UserError(
            "--auto_mixed_precision: TF1 only (it wraps a v1 optimizer for a Session); "
            "the TF2 twin takes --precision=bf16 or fp16"
        )


def unused_tf1_flags(cfg: Config) -> List[str]:
    """The TF1-only flags given other than their defaults, as ``--flag=value``."""
    d, r = cfg.devices, cfg.run
    pairs = [
        ("variable_update", d.variable_update, _DEVICES.variable_update),
        ("local_parameter_device", d.local_parameter_device, _DEVICES.local_parameter_device),
        ("allow_soft_placement", d.allow_soft_placement, _DEVICES.allow_soft_placement),
        ("allow_growth", d.allow_growth, _DEVICES.allow_growth),
        ("gpu_memory_fraction", d.gpu_memory_fraction, _DEVICES.gpu_memory_fraction),
        ("xla", d.xla, _DEVICES.xla),
        ("trace_file", r.trace_file, _RUN.trace_file),
        ("placement_report", r.placement_report, _RUN.placement_report),
    ]
    return [f"--{name}={value}" for name, value, default in pairs if value != default]
