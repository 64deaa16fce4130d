"""Forks training runs from a process that has already imported TensorFlow.

The fault-injection test (tests/test_faults.py) kills twenty training runs.
Twenty fresh interpreters would spend most of the test importing TensorFlow
(seconds each on this machine); a child forked from this process, which
imported it once and has not yet created a session, an eager context or a
thread pool, starts training in about a second. Each child runs the real
entry point, ``tf1_train.main.run()``, on its own argv, with stdout and
stderr going to a log file; nothing in tf1_train knows it is being tested.

Some windows are too short to hit with a timer from outside (a checkpoint's
bundle is complete but the ``checkpoint`` state file does not name it yet).
For those, this process wraps the TensorFlow function that starts the next
phase before forking; the wrapper SIGKILLs its own process on the n-th call,
only in a child that asked for it. Kill points:

  state_file   bundle written and renamed; ``checkpoint`` state file not updated
  delete_old   state file written; old checkpoints beyond max_to_keep not deleted
  delete_data  an old checkpoint's .index deleted, its data file not yet
  summary      run_summary.json's temporary file written, not yet renamed

One more kind kills another process, the parameter server of a ps/worker
job (its pid given), at a moment of the chief's end that no timer hits:

  kill_ps      {"pid": p, "at": a, "count": n}: SIGKILL the ps just before
               (a = "before_save") or just after ("after_save") the n-th
               Saver.save, or just before the n-th Session.close
               ("before_close")

Two more faults, for the tests of what the user is told:

  oom_at_step  the n-th training step raises the ResourceExhaustedError of a
               device out of memory (a CPU will not run out on cue)
  fsize_limit  RLIMIT_FSIZE in bytes, SIGXFSZ ignored: writes past it fail with
               EFBIG, as on a full disk

Protocol, one JSON object per line on stdin, one reply per line on stdout:

  {"argv": [...], "log": path, "kill_at": null or {"point": p, "count": n},
   "kill_ps": null or {...}, "oom_at_step": null or n, "fsize_limit": null or bytes}
      -> {"pid": pid}
  {"wait": pid} -> {"status": s}  (s < 0: ended by signal -s)
"""

from __future__ import annotations

import os
import resource
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tensorflow as tf  # noqa: E402
from tensorflow.python.checkpoint import checkpoint_management  # noqa: E402
from tensorflow.python.training import saver as saver_lib  # noqa: E402

from tests import fork_server  # noqa: E402
from tf1_train import loop, main, train  # noqa: E402,F401  (imported once, before forking)

_KILL = {"point": None, "count": 0}
_KILL_PS = {"pid": None, "at": None, "count": 0}
_OOM = {"steps_left": None}
OOM_MESSAGE = (
    "OOM when allocating tensor with shape[8,256] and type float on "
    "/job:localhost/replica:0/task:0/device:CPU:1 by allocator cpu"
)


def _kill_point(point: str, original, applies=lambda *a, **k: True):
    """Wraps ``original``: SIGKILL before the ``count``-th call that applies."""

    def wrapper(*args, **kwargs):
        if _KILL["point"] == point and applies(*args, **kwargs):
            _KILL["count"] -= 1
            if _KILL["count"] == 0:
                os.kill(os.getpid(), signal.SIGKILL)
        return original(*args, **kwargs)

    return wrapper


def _install_kill_points() -> None:
    cm = checkpoint_management
    cm.update_checkpoint_state_internal = _kill_point(
        "state_file", cm.update_checkpoint_state_internal
    )
    saver_lib.Saver._MaybeDeleteOldCheckpoints = _kill_point(
        "delete_old", saver_lib.Saver._MaybeDeleteOldCheckpoints
    )
    cm._delete_file_if_exists = _kill_point(
        "delete_data", cm._delete_file_if_exists, lambda spec: spec.endswith("-of-?????")
    )
    os.replace = _kill_point(
        "summary", os.replace, lambda src, dst: str(dst).endswith("run_summary.json")
    )


def _ps_kill_point(at: str, original, after: bool = False):
    """Wraps ``original``: SIGKILLs the ps before (or after) its n-th call."""

    def wrapper(*args, **kwargs):
        due = _KILL_PS["at"] == at and _KILL_PS["count"] == 1
        if _KILL_PS["at"] == at:
            _KILL_PS["count"] -= 1
        if due and not after:
            _kill_ps()
        result = original(*args, **kwargs)
        if due and after:
            _kill_ps()
        return result

    return wrapper


def _kill_ps() -> None:
    os.kill(_KILL_PS["pid"], signal.SIGKILL)
    print(f"fault_worker: killed the parameter server at {_KILL_PS['at']}", flush=True)


def _install_ps_kills() -> None:
    save = saver_lib.Saver.save
    saver_lib.Saver.save = _ps_kill_point("before_save", save)
    saver_lib.Saver.save = _ps_kill_point("after_save", saver_lib.Saver.save, after=True)
    session = tf.compat.v1.Session
    session.close = _ps_kill_point("before_close", session.close)


def _install_oom() -> None:
    """Training steps go through Session.run (a dict with "train") or through
    the callable TrainLoop prepares with make_callable; both count."""
    session = tf.compat.v1.Session

    def count_step() -> None:
        if _OOM["steps_left"] is not None:
            _OOM["steps_left"] -= 1
            if _OOM["steps_left"] == 0:
                raise tf.errors.ResourceExhaustedError(None, None, OOM_MESSAGE)

    run = session.run

    def run_wrapper(self, fetches, *args, **kwargs):
        if isinstance(fetches, dict) and "train" in fetches:
            count_step()
        return run(self, fetches, *args, **kwargs)

    make_callable = session.make_callable

    def make_callable_wrapper(self, fetches, *args, **kwargs):
        step = make_callable(self, fetches, *args, **kwargs)

        def counted(*a, **k):
            count_step()
            return step(*a, **k)

        return counted

    session.run = run_wrapper
    session.make_callable = make_callable_wrapper


def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _child(request) -> None:
    """Runs in the forked child; never returns."""

    def run() -> None:
        fork_server.redirect(request["log"], request["log"])
        kill_at = request.get("kill_at") or {}
        _KILL.update(point=kill_at.get("point"), count=kill_at.get("count", 0))
        _KILL_PS.update(request.get("kill_ps") or {})
        _OOM["steps_left"] = request.get("oom_at_step")
        if request.get("fsize_limit"):
            _limit_file_size(request["fsize_limit"])
        sys.argv = ["tf1_train.main", *request["argv"]]
        main.run()

    fork_server.exit_with(run)


def serve() -> None:
    _install_kill_points()
    _install_ps_kills()
    _install_oom()
    tf.get_logger().setLevel("ERROR")
    fork_server.serve(_child)


if __name__ == "__main__":
    serve()
