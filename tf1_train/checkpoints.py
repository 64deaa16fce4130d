"""Checkpoints in train_dir: save, find, restore with fallback, refuse a stranger's.

Checkpoints are written by the TrainGraph's ``tf.compat.v1.train.Saver``,
which holds every variable once (replicated copies of towers > 0 are rebuilt
from tower 0's by ``post_init_ops``). A checkpoint holds the global step,
the optimizer's slots and fp16's loss scale (one without the scale restores
into an fp16 run: saved_scale.py); the learning rate is a function of the
global step and the input pipeline a function of (seed, step), so restoring
the variables resumes everything.

Checkpoints are found by their ``model.ckpt-<step>.index`` files rather than
through the ``checkpoint`` state file, so a damaged state file cannot hide
them. An index file appears only once its bundle is complete: TensorFlow's
BundleWriter writes ``*.tempstate*`` files and renames them, data first.

A process killed while saving (tests/test_faults.py kills at every phase)
leaves files behind that nothing would ever delete: a ``*.tempstate*`` file,
a data file whose index was already deleted, a checkpoint beyond max_to_keep
whose deletion never came. Repeated preemptions would fill the disk with
them, so each successful save removes those older than itself.
"""

from __future__ import annotations

import glob
import os
import re
from typing import List, NamedTuple, Optional, Sequence

import tensorflow as tf

from tf1_train import files, precision, saved_scale
from tf1_train.errors import RunFailed, UserError

v1 = tf.compat.v1

PREFIX = "model.ckpt"
MAX_TO_KEEP = 3  # checkpoints kept in train_dir, by both paths
_INDEX = re.compile(re.escape(PREFIX) + r"-(\d+)\.index$")
# Any file of a checkpoint: index, data shard, or a temporary of either.
_ANY_FILE = re.compile(re.escape(PREFIX) + r"-(\d+)\.(index|data-\d+-of-\d+)(\.tempstate\d+)?$")
# The temporary of the ``checkpoint`` state file (TensorFlow's atomic write:
# the name plus ".tmp" and a uuid4 hex), left by a process killed mid-write.
_STATE_TMP = re.compile(r"checkpoint\.tmp[0-9a-f]{32}$")


# What a save raises when a cluster task holding variables is gone or frozen.
_PEER_LOST = (tf.errors.UnavailableError, tf.errors.DeadlineExceededError, tf.errors.AbortedError)


class Restored(NamedTuple):
    """Where a run starts: the checkpoint restored (None: fresh) and its step."""

    path: Optional[str]
    step: int


class _Corrupt(Exception):
    """A checkpoint that cannot be read; the message says why."""


def find(train_dir: str) -> List[str]:
    """Checkpoint prefixes in train_dir, newest (highest step) first."""
    found = []
    for index in glob.glob(os.path.join(glob.escape(train_dir), PREFIX + "-*.index")):
        m = _INDEX.search(os.path.basename(index))
        if m:
            found.append((int(m.group(1)), index[: -len(".index")]))
    return [path for _, path in sorted(found, reverse=True)]


def save(sess: v1.Session, saver: v1.train.Saver, train_dir: str, step: int) -> str:
    """Saves all variables as ``model.ckpt-<step>``; returns its prefix.

    No ``.meta`` file: the graph is rebuilt from flags (and is in the
    TensorBoard events), and writing it costs more than the variables of the
    small models.

    Raises:
      RunFailed: the files could not be written (disk full, file size limit,
        permissions changed mid-run); names the newest intact checkpoint.
    """
    try:
        path = saver.save(
            sess, os.path.join(train_dir, PREFIX), global_step=step, write_meta_graph=False
        )
    except _PEER_LOST:
        raise  # reading the variables from a lost cluster task: not a file problem
    except (tf.errors.OpError, OSError) as e:
        raise RunFailed(_save_failed(train_dir, step, e)) from None
    remove_leftovers(train_dir, saver.last_checkpoints, step)
    try:
        files.fsync_dir(train_dir)  # the renames of the bundle and state file
    except OSError as e:
        raise RunFailed(_save_failed(train_dir, step, e)) from None
    return path


def _save_failed(train_dir: str, step: int, error: Exception) -> str:
    why = reason(error) if isinstance(error, tf.errors.OpError) else error.strerror or str(error)
    why = why.rsplit("; ", 1)[-1]  # TensorFlow puts the temporary file's path first
    why, advice = explain_write_error(why)
    kept = find(train_dir)
    intact = f"the newest checkpoint {kept[0]} is intact" if kept else "no checkpoint was saved"
    return (
        f"--train_dir={train_dir}: could not write checkpoint {PREFIX}-{step} ({why}); "
        f"{advice}, then rerun to resume ({intact})"
    )


def explain_write_error(why: str):
    """(what happened, what to do) for a failed write to train_dir."""
    if "No space left" in why:
        return "no space left on device: the disk is full", (
            "free some space or choose another --train_dir"
        )
    if "File too large" in why:
        return "file too large: the file size limit (ulimit -f) was reached", (
            "raise the limit or choose another --train_dir"
        )
    if "Read-only file system" in why:
        return "read-only file system: train_dir's file system was made read-only", (
            "remount it read-write (check the disk: a kernel remounts a failing one "
            "read-only) or choose another --train_dir"
        )
    return why, "free some space or choose another --train_dir"


def remove_leftovers(train_dir: str, kept: Sequence[str], step: int) -> None:
    """Deletes checkpoint files older than ``step`` that are not in ``kept``.

    Called right after checkpoint ``step`` was saved, so the newest state is
    on disk whatever this removes: temporaries and orphaned data files of
    killed processes (of checkpoints and of the ``checkpoint`` state file),
    and complete checkpoints beyond max_to_keep (the
    Saver's ``kept`` list) that a killed process did not get to delete.
    """
    keep = {os.path.basename(p) for p in kept}
    for name in os.listdir(train_dir):
        m = _ANY_FILE.match(name)
        stale = m and int(m.group(1)) < step and f"{PREFIX}-{m.group(1)}" not in keep
        # The state file was renamed into place before save() returned, so
        # any temporary of it is a killed writer's (this run holds the lock).
        if stale or _STATE_TMP.match(name):
            try:
                os.unlink(os.path.join(train_dir, name))
            except OSError:
                pass  # gone already, or not ours to delete: it is only space


def restore_or_init(sess: v1.Session, g, train_dir: str, fresh=None) -> Restored:
    """Restores the newest readable checkpoint, or initialises from scratch.

    An unreadable checkpoint (truncated, bit flip, missing file) is reported in
    one line and the next older one is tried; if none is left the run fails
    with one ``error:`` line. A checkpoint of another model fails at once: it
    is not damaged, it is the wrong directory.

    Args:
      sess: a session on ``g.graph``.
      g: the TrainGraph (uses saver, saved_variables, init_op, post_init_ops).
      train_dir: where checkpoints live.
      fresh: ``fresh(sess, g)`` after initialising a run that restored
        nothing (warm_start.starter: --init_checkpoint), or None.
    """
    candidates = find(train_dir)
    if not candidates:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        if fresh is not None:
            fresh(sess, g)
        return Restored(None, 0)
    for i, path in enumerate(candidates):
        try:
            _restore(sess, g, path)
        except _Corrupt as e:
            _report_corrupt(path, str(e), candidates[i + 1 :], train_dir)
            continue
        # A new Saver forgets earlier processes' files; hand it the newest
        # max_to_keep survivors so it goes on deleting the oldest across
        # restarts (remove_leftovers deletes any older ones after a save).
        keep = g.saver.saver_def.max_to_keep or len(candidates)
        kept = list(reversed(candidates[i : i + keep]))
        g.saver.recover_last_checkpoints(kept)
        _catch_up_state_file(train_dir, path, kept)
        sess.run(g.local_init)  # not in checkpoints: synthetic input batches
        sess.run(g.post_init_ops)
        return Restored(path, int(sess.run(g.global_step)))
    raise AssertionError("unreachable: the last candidate raises or returns")


def _step_of(prefix: Optional[str]) -> int:
    m = _INDEX.search(os.path.basename(prefix) + ".index") if prefix else None
    return int(m.group(1)) if m else -1


def _catch_up_state_file(train_dir: str, restored: str, kept: List[str]) -> None:
    """Points the ``checkpoint`` state file at the restored checkpoint when it
    names an older one.

    A kill between writing a bundle and updating the state file leaves the
    file one save behind. This run resumes from the newest bundle anyway, but
    whatever reads the state file (``tf.train.latest_checkpoint``, the TF2
    path, TensorFlow tools) would resume from the older step until the next
    save. (After a corrupt newest checkpoint the file is left as it is.)
    """
    if _step_of(tf.train.latest_checkpoint(train_dir)) >= _step_of(restored):
        return
    v1.train.update_checkpoint_state(
        train_dir,
        os.path.basename(restored),
        all_model_checkpoint_paths=[os.path.basename(p) for p in kept],
    )


def _report_corrupt(path: str, reason: str, older: List[str], train_dir: str) -> None:
    if not older:
        raise UserError(
            f"--train_dir={train_dir}: checkpoint {path} is unreadable ({reason}) and "
            "there is no older one; move its files away to start from scratch"
        )
    print(
        f"warning: checkpoint {path} is unreadable ({reason}); "
        f"resuming from the older {os.path.basename(older[0])} instead",
        flush=True,
    )


def _restore(sess: v1.Session, g, path: str) -> None:
    try:
        reader = tf.train.load_checkpoint(path)
    except (tf.errors.OpError, ValueError) as e:
        raise _Corrupt(reason(e)) from None
    saved = g.saved_variables
    missing = saved_scale.absent(saved, reader.get_variable_to_shape_map())
    check_matches(path, reader, saved_scale.without(saved, missing))
    try:
        _saver_for(g, missing).restore(sess, path)
    except (tf.errors.OpError, ValueError) as e:
        raise _Corrupt(reason(e)) from None
    if missing:  # the loss scale of an fp32/bf16 run's checkpoint: starts fresh
        sess.run([saved[n].initializer for n in missing])
        initial = sess.run(saved[saved_scale.SCALE]) if saved_scale.SCALE in missing else None
        print(saved_scale.absent_line(path, missing, initial), flush=True)
    precision.keep_fixed(sess, g.precision)


def _saver_for(g, missing: List[str]) -> v1.train.Saver:
    """The run's Saver, or one without the loss-scale variables the checkpoint
    lacks (made once, when resuming such a checkpoint: before the graph is
    finalized)."""
    if not missing:
        return g.saver
    return v1.train.Saver(saved_scale.without(g.saved_variables, missing))


def check_matches(path: str, reader, variables) -> None:
    """Raises UserError naming the first variable the checkpoint lacks or
    holds with another shape or dtype. Extra entries (e.g. slots of another
    optimizer) are ignored, as the Saver ignores them."""
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    where = f"checkpoint {path} was written for a different model or optimizer"
    hint = "; use another --train_dir or the flags it was trained with"
    for name, var in sorted(variables.items()):
        if name not in shapes:
            raise UserError(f"{where}: it has no variable {name!r}{hint}")
        want = var.shape.as_list()
        if shapes[name] != want or dtypes[name] != var.dtype.base_dtype:
            got = f"{dtypes[name].name}{shapes[name]}"
            raise UserError(
                f"{where}: variable {name!r} is {got} there but "
                f"{var.dtype.base_dtype.name}{want} here{hint}"
            )


def reason(error: Exception) -> str:
    """The informative line of a TensorFlow error (not 'Graph execution error:')."""
    lines = [
        line.strip()
        for line in getattr(error, "message", str(error)).splitlines()
        if line.strip()
        and not line.strip().startswith(("[[", "File ", "Node:", "Detected at", "Hint:"))
    ]
    useful = [line for line in lines if not line.endswith(":")]
    return (useful or lines or [type(error).__name__])[-1]
