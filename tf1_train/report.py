"""What a run prints and writes: progress lines, throughput, run_summary.json."""

from __future__ import annotations

import collections
import json
import statistics
import time
from typing import Dict, Optional

from tf1_train import files


class ThroughputMeter:
    """Examples/sec over display windows and over the whole run, warm-up excluded.

    ``tick(step)`` is called after each completed step (1-based count of steps
    this process ran). Steps up to ``warmup_steps`` are never measured: they
    pay for graph optimisation and allocation, not for training.
    """

    def __init__(self, examples_per_step: int, warmup_steps: int, total_steps: int):
        self.examples_per_step = examples_per_step
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self._start: Optional[float] = None  # when the first measured step began
        self._window_start: Optional[float] = None
        self._window_steps = 0
        self._measured_steps = 0
        self._last = time.perf_counter()
        self.first_tick: Optional[float] = None  # when this process's first step ended
        # Durations of the latest measured steps (bounded: a long run must not grow).
        self._durations: collections.deque = collections.deque(maxlen=4096)

    def tick(self, steps_done: int) -> None:
        now = time.perf_counter()
        if self.first_tick is None:
            self.first_tick = now
        if steps_done <= self.warmup_steps:
            self._last = now
            return
        if self._start is None:
            self._start = self._window_start = self._last
        self._measured_steps += 1
        self._window_steps += 1
        self._durations.append(now - self._last)
        self._last = now

    def window_rate(self) -> float:
        """Mean examples/sec since the previous call (0 during warm-up)."""
        if self._window_start is None or self._window_steps == 0:
            return 0.0
        elapsed = self._last - self._window_start
        rate = self._window_steps * self.examples_per_step / max(elapsed, 1e-9)
        self._window_start, self._window_steps = self._last, 0
        return rate

    def overall_rate(self) -> float:
        if self._start is None or self._measured_steps == 0:
            return 0.0
        elapsed = self._last - self._start
        return self._measured_steps * self.examples_per_step / max(elapsed, 1e-9)

    def median_step_rate(self) -> float:
        """Examples/sec of the median step (of the latest 4096): unlike the
        mean, it ignores the few steps another process on the machine slowed."""
        if not self._durations:
            return 0.0
        return self.examples_per_step / max(statistics.median(self._durations), 1e-9)

    def eta_seconds(self, steps_done: int) -> Optional[float]:
        if self._start is None or self._measured_steps == 0:
            return None
        per_step = (self._last - self._start) / self._measured_steps
        return per_step * (self.total_steps - steps_done)


def format_eta(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def progress_line(step: int, total: int, loss: float, rate: float, lr: float, eta: str) -> str:
    """One progress line; ``rate`` 0 means nothing is measured yet (warm-up)."""
    if rate <= 0:
        return f"step {step}/{total}  loss {loss:.4f}  warming up  lr {lr:.4g}"
    return f"step {step}/{total}  loss {loss:.4f}  examples/sec {rate:.1f}  lr {lr:.4g}  eta {eta}"


def run_summary(
    *,
    cfg,
    tower_devices,
    variable_update: str,
    variable_devices: Dict[str, int],
    global_step: int,
    final_loss: Optional[float],
    test_accuracy: float,
    examples_per_sec: float,
    wall_start: float,
    stopped_by: str,
    tf_version: str,
    first_step_done: Optional[float] = None,
    median_step_rate: float = 0.0,
) -> Dict:
    """The run_summary.json keys every route writes (docs/OUTPUT.md);
    ``wall_start`` is the run's time.perf_counter() at entry."""
    return {
        "tf_version": tf_version,
        "model": cfg.model,
        "dataset": cfg.data.dataset,
        "num_towers": cfg.devices.num_towers,
        "tower_devices": list(tower_devices),
        "variable_update": variable_update,
        "variable_devices": variable_devices,
        "global_step": int(global_step),
        "final_loss": final_loss,
        "test_accuracy": test_accuracy,
        "examples_per_sec": round(examples_per_sec, 1),
        "examples_per_sec_median_step": round(median_step_rate, 1),
        "wall_seconds": round(time.perf_counter() - wall_start, 1),
        "stopped_by": stopped_by,
        "first_step_seconds": round(first_step_done - wall_start, 2) if first_step_done else None,
    }


def write_json_atomic(path: str, data: Dict) -> None:
    """Writes JSON so readers see the old file or the new one, never half
    (``files.write_atomic``)."""
    files.write_atomic(path, json.dumps(data, indent=2, sort_keys=False) + "\n")
