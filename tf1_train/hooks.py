"""The user's ``tf.compat.v1.train.SessionRunHook``s (``--hooks``), run
around tf1_train's own steps the way MonitoredSession ran them.

TF1 code brings hooks to ``MonitoredTrainingSession(hooks=...)`` or an
Estimator's ``training_hooks``; tf1_train's loop is a plain ``Session.run``
loop, so this module plays MonitoredSession's part for them:

* ``begin()`` once the training graph is built, before it is finalized (a
  hook may add ops; a variable it made would be neither initialised nor
  saved, so that is refused);
* ``after_create_session(session, coord)`` after the restore or the init;
* each step, ``before_run(run_context)``: its ``SessionRunArgs`` (fetches,
  feed_dict, options) join the step's own ``Session.run``, and
  ``after_run(run_context, run_values)`` gets the hook's results;
* ``run_context.request_stop()`` (or ``coord.request_stop()``) ends the run
  after that step as reaching ``--train_steps`` does;
* ``end(session)`` after the last step, also on a SIGTERM/SIGINT stop, not
  when the run fails.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

import tensorflow as tf

from tf1_train import models
from tf1_train.errors import UserError

v1 = tf.compat.v1


class Diverged(Exception):
    """Raised inside the loop when the state must not be saved: a NaN/Inf
    loss or variable, or a hook's NanLossDuringTrainingError."""


def load(ref: str) -> Hooks:
    """Calls ``--hooks``'s function with no arguments in the default graph
    (the training graph: ``get_global_step()`` works), then each hook's
    ``begin()``. Every failure is one UserError line naming ``--hooks``."""
    if not ref:
        return Hooks(())
    fn = models.resolve(ref, "hooks")
    graph = v1.get_default_graph()
    known = set(graph.get_collection(v1.GraphKeys.GLOBAL_VARIABLES)) | set(
        graph.get_collection(v1.GraphKeys.LOCAL_VARIABLES)
    )
    try:
        made = fn()
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"--hooks={ref}: {models.describe_failure(e)}") from None
    _check_hooks(made, ref)
    hooks = Hooks(made, ref)
    hooks.begin()
    new = [
        v
        for key in (v1.GraphKeys.GLOBAL_VARIABLES, v1.GraphKeys.LOCAL_VARIABLES)
        for v in graph.get_collection(key)
        if v not in known
    ]
    if new:
        raise UserError(
            f"--hooks={ref}: makes variable {new[0].op.name!r}, which nothing would initialise "
            "or checkpoint (tf1_train builds its init op before the hooks); keep hook state "
            "in Python, or make the variable in your --model"
        )
    # TF1 hooks report through tf.compat.v1.logging at INFO (LoggingTensorHook,
    # StepCounterHook): the entry point quiets TensorFlow's logger to ERROR.
    tf.get_logger().setLevel("INFO")
    return hooks


def _check_hooks(made, ref: str) -> None:
    what = f"--hooks={ref}: returned"
    if not isinstance(made, (list, tuple)):
        raise UserError(
            f"{what} a {type(made).__name__}; expected a list of "
            "tf.compat.v1.train.SessionRunHook objects"
        )
    for i, hook in enumerate(made):
        if not isinstance(hook, v1.train.SessionRunHook):
            raise UserError(
                f"{what} a list whose item {i} is a {type(hook).__name__}, not a "
                "tf.compat.v1.train.SessionRunHook"
            )


class Hooks:
    """The hooks of one run; with none, ``run`` is ``Session.run``."""

    def __init__(self, hooks: Sequence, flag_value: str = ""):
        self.hooks: List = list(hooks)
        self.flag_value = flag_value
        self.coord = v1.train.Coordinator()
        self.stopped_by: Optional[str] = None  # the hook that asked to stop
        self._announced = False

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def describe(self) -> str:
        names = ", ".join(type(h).__name__ for h in self.hooks) or "none"
        return f"hooks: --hooks={self.flag_value} gives {names}"

    def begin(self) -> None:
        for hook in self.hooks:
            self._call(hook, "begin")

    def after_create_session(self, sess: v1.Session) -> None:
        for hook in self.hooks:
            self._call(hook, "after_create_session", sess, self.coord)
            if self.coord.should_stop():
                self.stopped_by = self.stopped_by or type(hook).__name__

    def end(self, sess: v1.Session) -> None:
        for hook in self.hooks:
            self._call(hook, "end", sess)

    def stop_now(self, step: int) -> bool:
        """True once a hook asked to stop; the first time, says which."""
        if self.stopped_by is None:
            return False
        if not self._announced:
            self._announced = True
            print(
                f"{self.stopped_by} (--hooks={self.flag_value}) asked to stop: ending after "
                f"step {step} as at the end of --train_steps",
                flush=True,
            )
        return True

    def run(self, sess: v1.Session, fetches, options=None, run_metadata=None):
        """``sess.run(fetches)`` with every hook's before_run/after_run around
        it, their fetches, feeds and options in the same call."""
        if not self.hooks:
            return sess.run(fetches, options=options, run_metadata=run_metadata)
        context = v1.train.SessionRunContext(v1.train.SessionRunArgs(fetches), sess)
        asked = [self._call(h, "before_run", context) for h in self.hooks]
        self._note_stop(context, None)
        wanted = {
            i: a.fetches for i, a in enumerate(asked) if a is not None and a.fetches is not None
        }
        feeds = self._feeds(asked)
        options = merge_options([options] + [a.options for a in asked if a is not None])
        if options is not None and run_metadata is None:
            run_metadata = v1.RunMetadata()
        try:
            out = sess.run(
                {"own": fetches, "hooks": wanted},
                feed_dict=feeds or None,
                options=options,
                run_metadata=run_metadata,
            )
        except (TypeError, ValueError, KeyError) as e:  # a fetch or feed that is no tensor
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UserError(
                f"--hooks={self.flag_value}: a hook's SessionRunArgs: {first}"
            ) from None
        for i, hook in enumerate(self.hooks):
            values = v1.train.SessionRunValues(out["hooks"].get(i), options, run_metadata)
            self._call(hook, "after_run", context, values)
            self._note_stop(context, hook)
        return out["own"]

    def _note_stop(self, context, hook) -> None:
        if self.stopped_by is None and (context.stop_requested or self.coord.should_stop()):
            self.stopped_by = type(hook).__name__ if hook is not None else "a hook's before_run"

    def _feeds(self, asked) -> dict:
        feeds: dict = {}
        for hook, args in zip(self.hooks, asked):
            for key, value in ((args.feed_dict or {}) if args is not None else {}).items():
                if key in feeds:
                    raise UserError(
                        f"--hooks={self.flag_value}: {type(hook).__name__} feeds {key} "
                        "that another hook feeds too"
                    )
                feeds[key] = value
        return feeds

    def _call(self, hook, method: str, *args):
        """A hook's method; its exceptions become one line naming it (a
        NanLossDuringTrainingError is the run diverging)."""
        try:
            return getattr(hook, method)(*args)
        except (UserError, tf.errors.OpError):
            raise
        except v1.train.NanLossDuringTrainingError:
            raise Diverged(
                f"{type(hook).__name__} (--hooks={self.flag_value}) found a NaN loss"
            ) from None
        except Exception as e:
            raise UserError(
                f"--hooks={self.flag_value}: {type(hook).__name__}.{method} "
                f"{models.describe_failure(e)}"
            ) from None


def merge_options(options: Sequence) -> Optional[v1.RunOptions]:
    """One RunOptions asking for all that each asks (None if none asks):
    the highest trace level and timeout, every debug watch."""
    given = [o for o in options if o is not None]
    if not given:
        return None
    merged = v1.RunOptions()
    for o in given:
        merged.trace_level = max(merged.trace_level, o.trace_level)
        merged.timeout_in_ms = max(merged.timeout_in_ms, o.timeout_in_ms)
        merged.inter_op_thread_pool = max(merged.inter_op_thread_pool, o.inter_op_thread_pool)
        merged.output_partition_graphs |= o.output_partition_graphs
        merged.report_tensor_allocations_upon_oom |= o.report_tensor_allocations_upon_oom
        merged.debug_options.debug_tensor_watch_opts.extend(o.debug_options.debug_tensor_watch_opts)
    return merged
