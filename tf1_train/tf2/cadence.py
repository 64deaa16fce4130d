"""Between the TF2 custom loop's steps, and at its end, what the TF1 loop does.

A checkpoint every --save_checkpoint_steps and an eval every --eval_every
global steps (keyed to the global step, so a resumed run saves and
evaluates at the same steps as an uninterrupted one); a stop after the step
a SIGTERM/SIGINT arrived in, saved; a stop without a save when the loss or
a variable turns NaN/Inf, so a checkpoint of a diverged state is never
written. Without these the TF2 path saved and evaluated only at the end, a
signal lost every step since the start, and a diverged run went on and
saved NaN weights with exit status 0.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, Optional

import tensorflow as tf

from tf1_train import eval_metrics
from tf1_train.config import Config
from tf1_train.tf2 import checkpoint


class Between:
    """The cadences and stops of one run; ``stopped_by`` after ``end``."""

    def __init__(
        self,
        cfg: Config,
        state: Callable[[], Dict[str, tf.Variable]],
        evaluate: Callable[[], tuple],
        writer,
        stop,
        restored: Optional[str],
    ):
        """``state()``: what a checkpoint holds; ``evaluate()``: (test
        accuracy, --eval_metrics values); ``restored``: the checkpoint the
        run started from, if any."""
        self.cfg, self.state, self._evaluate, self.writer, self.stop = (
            cfg, state, evaluate, writer, stop,
        )  # fmt: skip
        self.checkpoint = restored  # the newest written or restored
        self.saved_step: Optional[int] = None
        self.diverged: Optional[str] = None
        self.accuracy: Optional[float] = None
        self.metrics: Optional[Dict] = None

    def after_step(self, step: int, loss: float) -> bool:
        """True: stop now (NaN/Inf, or a signal during the step, save or eval)."""
        run = self.cfg.run
        if not math.isfinite(loss):
            self.diverged = f"loss is {loss} at step {step}"
            return True
        if step < run.train_steps and not self.stop.requested:
            if step % run.save_checkpoint_steps == 0 and not self.save(step):
                return True
            if run.eval_every and step % run.eval_every == 0:
                self.evaluate(step)
        if self.stop.requested:
            print(
                f"{self.stop.signal_name} received: stopping after step {step} "
                "(a second signal ends the process at once)",
                flush=True,
            )
        return self.stop.requested

    def save(self, step: int) -> bool:
        """Saves unless already saved at this step; False (and nothing
        written) if a variable holds NaN or Inf."""
        if step == self.saved_step:
            return True
        state = self.state()
        if not all_finite(state.values()):
            self.diverged = f"variables hold NaN or Inf after step {step}"
            return False
        self.checkpoint = checkpoint.save(self.cfg.run.train_dir, state, step)
        self.saved_step = step
        return True

    def evaluate(self, step: int) -> None:
        """The eval line and scalars, as the TF1 loop's."""
        self.accuracy, self.metrics = self._evaluate()
        more = eval_metrics.line(self.metrics)
        print(f"eval at step {step}: test accuracy {self.accuracy:.4f}{more}", flush=True)
        scalars = {"test_accuracy": self.accuracy, **eval_metrics.scalars(self.metrics)}
        self.writer.scalars(step, scalars)

    def end(self, step: int) -> str:
        """The last save and eval: how the run stopped (``stopped_by``)."""
        self.accuracy = self.metrics = None
        if self.diverged is None and self.save(step) and not self.stop.requested:
            self.evaluate(step)
            return "train_steps"
        if self.diverged is not None:
            return "diverged"
        print(f"stopped at step {step}: saved {self.checkpoint}; rerun the same command to resume")
        return "signal"


def all_finite(variables) -> bool:
    """No float variable holds NaN or Inf (checked before every save)."""
    return all(
        bool(tf.reduce_all(tf.math.is_finite(v.read_value())))
        for v in variables
        if v.dtype.is_floating
    )
