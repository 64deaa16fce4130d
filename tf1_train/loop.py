"""The training steps of one process, and what happens around each of them.

A plain ``for`` loop over ``Session.run`` instead of MonitoredTrainingSession
(the user's own hooks run around its steps: hooks.py): every cadence
(progress, summaries, eval, checkpoints) is one ``if`` on the global step,
the profiled step is chosen explicitly, and the order of events on a stop
(signal, NaN, a hook's request) is written out where it can be read.

Every cadence is keyed to the global step, not to steps of this process, so a
resumed run prints, summarises, evaluates and saves at the same steps as one
that never stopped.
"""

from __future__ import annotations

import array
import math
import re
from typing import Callable, Dict, NamedTuple, Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train import checkpoints, devices, eval_metrics, placement, report, trace
from tf1_train.config import Config
from tf1_train.devices import DevicePlan
from tf1_train.errors import RunFailed
from tf1_train.graph import TrainGraph
from tf1_train.hooks import Diverged as _Diverged
from tf1_train.hooks import Hooks
from tf1_train.signals import StopRequest
from tf1_train.summaries import EventWriter

v1 = tf.compat.v1

# The step whose timings are traced, counted from this process's first. The
# first step pays one-time costs (allocation, kernel selection); the second
# shows the steady state.
PROFILED_STEP = 2


class Outcome(NamedTuple):
    """How the loop ended."""

    losses: Sequence[float]  # mean tower loss of every step this process ran
    examples_per_sec: float
    global_step: int
    stopped_by: str  # 'train_steps', 'signal', 'hook' or 'diverged' (NaN/Inf)
    placement: Optional[placement.PlacementReport]
    checkpoint: Optional[str]  # newest checkpoint written or restored
    test_accuracy: Optional[float]  # None when stopped early
    diverged: Optional[str] = None  # what was NaN/Inf, and at which step
    first_step_done: Optional[float] = None  # perf_counter() when step 1 of this process ended
    median_step_rate: float = 0.0  # examples/sec of the median measured step
    loss_scale: Optional[Dict] = None  # fp16 / auto mixed precision: scale, skipped steps
    eval_metrics: Optional[Dict] = None  # --eval_metrics' values at the final eval


class Role(NamedTuple):
    """How this process shares the global step.

    A single process owns it: step k + 1 follows step k. A cluster worker
    reads it after each of its updates (the other workers move it too, so
    it may jump), and only the chief saves, evaluates and writes events.
    """

    chief: bool = True
    shared_step: Optional[tf.Tensor] = None  # the global step read after the update
    on_steps_end: Optional[Callable[[], None]] = None  # before the final save and eval


SINGLE_PROCESS = Role()


def evaluate(sess: v1.Session, g: TrainGraph) -> Tuple[float, Dict[str, Optional[float]]]:
    """Accuracy over the whole test split, and the user's eval metrics
    (reset first, updated on every batch: Estimator.evaluate's order)."""
    sess.run(g.eval_init)
    metrics = g.eval_metrics
    fetches = [g.eval_correct, g.eval_count]
    if metrics is not None:
        sess.run(metrics.reset)
        fetches.append(metrics.update)
    correct = total = 0
    while True:
        try:
            c, n = sess.run(fetches)[:2]
        except tf.errors.OutOfRangeError:
            break
        correct, total = correct + int(c), total + int(n)
    values = eval_metrics.as_numbers(sess.run(metrics.values)) if metrics is not None else {}
    return correct / max(total, 1), values


def out_of_memory(
    error: Exception, plan: DevicePlan, batch_size: int, step: int, checkpoint: Optional[str]
) -> str:
    """The one line for an out-of-memory error after global step ``step``.

    Names the device TensorFlow's message names (else every tower device),
    the per-tower batch, and what to try, as the usual advice goes: see with
    nvidia-smi whether another process holds the GPU's memory, then lower
    the batch or change how TensorFlow reserves memory.
    """
    where = re.search(r"device:(?:GPU|CPU|XLA_\w+):\d+", str(error))
    device = "/" + where.group(0) if where else " and ".join(plan.tower_devices)
    towers = ", ".join(plan.tower_devices)
    if devices.uses_gpu(plan):
        advice = (
            "check nvidia-smi for other processes holding GPU memory, then try a smaller "
            "--batch_size, --allow_growth, or --gpu_memory_fraction"
        )
    else:
        advice = "try a smaller --batch_size or fewer --num_gpus (towers share host memory)"
    kept = f"checkpoint {checkpoint} is intact" if checkpoint else "no checkpoint was saved"
    return (
        f"out of memory on {device} after global step {step} (towers: {towers}; "
        f"--batch_size={batch_size} per tower): {advice}; {kept}"
    )


class TrainLoop:
    """Runs steps from a restored global step up to ``--train_steps``.

    Args:
      sess: session with variables restored or initialised and input started.
      g: the TrainGraph.
      cfg: the run's Config.
      plan: the DevicePlan (what the placement report expects).
      writer: TensorBoard events.
      stop: set by SIGTERM/SIGINT.
      restored: the checkpoint the session starts from.
      role: a single process (default) or a cluster worker.
      hooks: the user's SessionRunHooks, begun and after their
        after_create_session (none by default).
    """

    def __init__(
        self,
        sess: v1.Session,
        g: TrainGraph,
        cfg: Config,
        plan: DevicePlan,
        writer: EventWriter,
        stop: StopRequest,
        restored: checkpoints.Restored,
        role: Role = SINGLE_PROCESS,
        hooks: Optional[Hooks] = None,
    ):
        self.sess, self.g, self.cfg, self.plan, self.role = sess, g, cfg, plan, role
        self.writer, self.stop = writer, stop
        self.hooks = hooks if hooks is not None else Hooks(())
        self.start, self.checkpoint = restored.step, restored.path
        self.saved_step = restored.step if restored.path else None
        self.steps = max(cfg.run.train_steps - self.start, 0)
        per_step = cfg.data.batch_size * cfg.devices.num_towers
        warmup = min(cfg.run.num_warmup_steps, max(self.steps - 1, 0))
        # Two meters: each window rate resets the window it reports.
        self.display_meter = report.ThroughputMeter(per_step, warmup, self.steps)
        self.summary_meter = report.ThroughputMeter(per_step, warmup, self.steps)
        # A compact array, not a list of float objects: 8 bytes a step instead
        # of 32, so a run of millions of steps does not grow by hundreds of MB.
        self.losses = array.array("d")
        self.last_step = self.start
        self.placement: Optional[placement.PlacementReport] = None
        self.metrics: Optional[Dict] = None  # --eval_metrics at the latest eval
        self._plain_step = sess.make_callable([g.train_op, g.loss, g.learning_rate])

    def run(self) -> Outcome:
        """Trains until --train_steps, a signal, or a NaN/Inf loss or variable.

        Raises:
          RunFailed: a step or an eval ran out of memory, or a checkpoint
            could not be written; nothing is saved after it.
        """
        try:
            return self._run()
        except _Diverged as e:
            outcome = self._outcome(self.last_step, "diverged")
            return outcome._replace(diverged=str(e))
        except tf.errors.ResourceExhaustedError as e:
            # Checkpoint writes raise RunFailed themselves: this is memory,
            # in the step after last_step or in an eval after it.
            raise RunFailed(
                out_of_memory(
                    e, self.plan, self.cfg.data.batch_size, self.last_step, self.checkpoint
                )
            ) from None

    def _run(self) -> Outcome:
        try:
            signalled = self._steps()
        except _Diverged:
            self._steps_ended()
            raise
        self._steps_ended()
        if signalled:
            self._save(self.last_step)
            outcome = self._outcome(self.last_step, "signal")
        else:
            outcome = self._finish()
        self.hooks.end(self.sess)
        return outcome

    def _steps_ended(self) -> None:
        """The role's hook, after the last step (not after a session error:
        the cluster may be gone)."""
        if self.role.on_steps_end is not None:
            self.role.on_steps_end()

    def _steps(self) -> bool:
        """Steps until --train_steps or a hook's stop; True if a signal
        stopped them first."""
        done = 0
        while self.last_step < self.cfg.run.train_steps:
            if self.hooks.stop_now(self.last_step):
                break
            done += 1
            prev = self.last_step
            loss, lr, step = self._step(done, prev)
            self.last_step = step
            self.losses.append(loss)
            if not math.isfinite(loss):
                raise _Diverged(f"loss is {loss} at step {step}")
            self._after_step(done, prev, step, loss, lr)
            if self.stop.requested:
                print(
                    f"{self.stop.signal_name} received: stopping after step {step} "
                    "(a second signal ends the process at once)",
                    flush=True,
                )
                return True
        return False

    def _finish(self) -> Outcome:
        end = self.last_step
        if not self.losses and not self.hooks.stopped_by:
            where = self.checkpoint or "the model"
            print(
                f"nothing to train: {where} is at global step {end} "
                f"(--train_steps={self.cfg.run.train_steps}); raise --train_steps to go on",
                flush=True,
            )
            self._probe_placement()
        else:
            self._save(end)
        accuracy = self._evaluate(end) if self.role.chief else None
        by_hook = self.hooks.stopped_by and end < self.cfg.run.train_steps
        return self._outcome(end, "hook" if by_hook else "train_steps", accuracy)

    def _outcome(self, step: int, stopped_by: str, accuracy=None) -> Outcome:
        rate = self.display_meter.overall_rate()
        return Outcome(
            self.losses,
            rate,
            step,
            stopped_by,
            self.placement,
            self.checkpoint,
            accuracy,
            first_step_done=self.display_meter.first_tick,
            median_step_rate=self.display_meter.median_step_rate(),
            loss_scale=self._loss_scale(),
            eval_metrics=self.metrics if accuracy is not None else None,
        )

    def _loss_scale(self) -> Optional[Dict]:
        """The loss scale and the skipped steps now, if the run scales its loss."""
        if not self.g.loss_scale_state:
            return None
        return {k: v.item() for k, v in self.sess.run(self.g.loss_scale_state).items()}

    def _fetches(self, step: int) -> Dict:
        fetches = {"train": self.g.train_op, "loss": self.g.loss, "lr": self.g.learning_rate}
        if self.role.shared_step is not None:
            fetches["step"] = self.role.shared_step
        if self.writer.summary_op is not None and self._summary_due(step - 1, step):
            fetches["summaries"] = self.writer.summary_op
        return fetches

    def _step(self, done: int, prev: int):
        """One training step: (loss, lr, global step after it). The first and
        the profiled step collect metadata."""
        fetches = self._fetches(prev + 1)
        profile = done == min(PROFILED_STEP, self.steps)
        partitions = done == 1
        metadata = v1.RunMetadata() if profile or partitions else None
        if metadata is not None:
            options = trace.run_options(profile, partitions, devices.uses_gpu(self.plan))
            out = self.hooks.run(self.sess, fetches, options=options, run_metadata=metadata)
        elif len(fetches) == 3 and not self.hooks:
            # The common step: a prepared callable skips Session.run's
            # per-call fetch parsing (tf_cnn_benchmarks does the same).
            _, loss, lr = self._plain_step()
            return float(loss), float(lr), prev + 1
        else:
            out = self.hooks.run(self.sess, fetches)
        step = int(out["step"]) if "step" in out else prev + 1
        if metadata is not None:
            self._use_metadata(metadata, step, profile, partitions)
        if "summaries" in out:
            self.writer.serialized(step, out["summaries"])
        return float(out["loss"]), float(out["lr"]), step

    def _use_metadata(self, metadata, step: int, profile: bool, partitions: bool) -> None:
        if partitions:
            self._set_placement(metadata.partition_graphs)
        if profile:
            self.writer.run_metadata(metadata, step)
            if self.cfg.run.trace_file:
                trace.write_chrome_trace(metadata, self.cfg.run.trace_file)
                print(f"trace of step {step} written to {self.cfg.run.trace_file}", flush=True)

    def _set_placement(self, partition_graphs) -> None:
        self.placement = placement.build(
            partition_graphs,
            self.g.model_variables,
            self.plan,
            self.g.mode,
        )
        warning = placement.warning(self.placement, self.g.mode)
        if warning:
            print(warning, flush=True)

    def _probe_placement(self) -> None:
        """No step left to train: place a forward pass (it changes no variable)."""
        metadata = v1.RunMetadata()
        options = trace.run_options(False, True, devices.uses_gpu(self.plan))
        self.sess.run(self.g.loss, options=options, run_metadata=metadata)
        self._set_placement(metadata.partition_graphs)

    def _summary_due(self, prev: int, step: int) -> bool:
        return crossed(prev, step, self.cfg.run.save_summary_steps) or (
            step >= self.cfg.run.train_steps
        )

    def _after_step(self, done: int, prev: int, step: int, loss: float, lr: float) -> None:
        """Cadences fire when the global step crosses a multiple: a worker's
        step can jump over it when other workers update in between."""
        run = self.cfg.run
        self.display_meter.tick(done)
        self.summary_meter.tick(done)
        if crossed(prev, step, run.display_every) or step >= run.train_steps:
            eta = report.format_eta(self.display_meter.eta_seconds(done))
            rate = self.display_meter.window_rate()
            print(report.progress_line(step, run.train_steps, loss, rate, lr, eta), flush=True)
        if self._summary_due(prev, step):
            values = {"loss": loss, "learning_rate": lr}
            rate = self.summary_meter.window_rate()
            if rate > 0:  # 0 means still warming up: nothing measured yet
                values["examples_per_sec"] = rate
            values.update(self._loss_scale() or {})
            self.writer.scalars(step, values)
        due_eval = run.eval_every and crossed(prev, step, run.eval_every)
        if due_eval and step < run.train_steps and self.role.chief:
            self._evaluate(step)
        if crossed(prev, step, run.save_checkpoint_steps):
            self._save(step)

    def _evaluate(self, step: int) -> float:
        accuracy, metrics = evaluate(self.sess, self.g)
        more = eval_metrics.line(metrics)
        print(f"eval at step {step}: test accuracy {accuracy:.4f}{more}", flush=True)
        self.writer.scalars(step, {"test_accuracy": accuracy, **eval_metrics.scalars(metrics)})
        self.metrics = metrics if self.g.eval_metrics is not None else None
        return accuracy

    def _save(self, step: int) -> None:
        """Saves unless already saved at this step (or not the chief); never
        a NaN/Inf state."""
        if step == self.saved_step or not self.role.chief:
            return
        if not self.sess.run(self.g.variables_finite):
            raise _Diverged(f"variables hold NaN or Inf after step {step}")
        self.saved_step = step
        self.checkpoint = checkpoints.save(self.sess, self.g.saver, self.cfg.run.train_dir, step)


def crossed(prev: int, step: int, every: int) -> bool:
    """True if a multiple of ``every`` lies in (prev, step]."""
    return step // every > prev // every
