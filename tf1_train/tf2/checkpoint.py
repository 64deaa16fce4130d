"""TF1-format (name-based) checkpoints from TF2 code, both ways.

``tf.train.Checkpoint`` writes object-graph keys
(``model/.../.ATTRIBUTES/VARIABLE_VALUE``) that a TF1 ``Saver`` cannot read.
This module reads and writes the TF1 layout instead: one tensor per TF1
variable name plus the ``checkpoint`` state file, so a TF1 run can resume
from a TF2 run's checkpoint and the other way round.
"""

from __future__ import annotations

import os
from typing import Dict, Optional

import tensorflow as tf

from tf1_train import checkpoints, saved_scale
from tf1_train.errors import UserError

PREFIX = checkpoints.PREFIX


def latest(train_dir: str) -> Optional[str]:
    """The newest complete checkpoint, found by its ``.index`` file as TF1 does.

    Not ``tf.train.latest_checkpoint``: a process killed between writing a
    bundle and updating the ``checkpoint`` state file leaves the state file a
    save behind, and resuming from it would repeat those steps.
    """
    found = checkpoints.find(train_dir) if os.path.isdir(train_dir) else []
    return found[0] if found else None


def load_into(path: str, variables: Dict[str, tf.Variable], strict: bool = True) -> None:
    """Assigns each variable the checkpoint tensor of the same TF1 name.

    Args:
      path: checkpoint prefix (``.../model.ckpt-500``).
      variables: TF1 name -> variable (mirrored variables update every copy).
      strict: fail, naming them, if variables are missing from the checkpoint
        (loss-scale state may be missing: it keeps its initial value, in one line).
    """
    reader = tf.train.load_checkpoint(path)
    shapes = reader.get_variable_to_shape_map()
    no_scale = saved_scale.absent(variables, shapes)  # an fp32/bf16 run's: starts fresh
    missing = sorted(n for n in variables if n not in shapes and n not in no_scale)
    if missing and strict:
        raise UserError(
            f"checkpoint {path} lacks {len(missing)} variable(s) of this model, "
            f"e.g. {', '.join(missing[:3])}: was it written for another --model?"
        )
    for name, var in variables.items():
        if name in shapes:
            value = reader.get_tensor(name)
            if list(value.shape) != var.shape.as_list():
                raise UserError(
                    f"checkpoint {path}: {name} has shape {list(value.shape)}, "
                    f"the model expects {var.shape.as_list()}"
                )
            var.assign(value)
    if no_scale:
        scale = variables.get(saved_scale.SCALE) if saved_scale.SCALE in no_scale else None
        initial = float(scale.numpy()) if scale is not None else None
        print(saved_scale.absent_line(path, no_scale, initial), flush=True)


def restore_latest(train_dir: str, variables: Dict[str, tf.Variable]) -> int:
    """Restores the newest checkpoint in train_dir, if any; returns its step."""
    path = latest(train_dir)
    if path is None:
        return 0
    load_into(path, variables)
    var = variables.get("global_step")
    step = int(var.numpy()) if var is not None else 0
    print(f"resuming from {path} (global step {step})", flush=True)  # as the TF1 loop says
    return step


def _value(v):
    """A variable's value, or a tensor as it is (state computed for saving)."""
    return v.read_value() if hasattr(v, "read_value") else v


def save(train_dir: str, variables: Dict[str, tf.Variable], step: int) -> str:
    """Writes ``model.ckpt-<step>`` in the TF1 layout and points ``checkpoint`` at it.

    Keeps the newest ``MAX_TO_KEEP`` checkpoints, as the TF1 Saver does, and
    deletes older ones and a killed process's leftovers: each resumed run
    saves once more, and nothing else would ever delete them.
    """
    prefix = os.path.join(train_dir, f"{PREFIX}-{step}")
    names = sorted(variables)
    tf.raw_ops.SaveV2(
        prefix=prefix,
        tensor_names=names,
        shape_and_slices=[""] * len(names),
        tensors=[_value(variables[n]) for n in names],
    )
    kept = [os.path.basename(p) for p in checkpoints.find(train_dir)[: checkpoints.MAX_TO_KEEP]]
    # Oldest first, as the TF1 Saver writes them; TensorFlow's own writer
    # replaces the file atomically.
    tf.compat.v1.train.update_checkpoint_state(
        train_dir, os.path.basename(prefix), all_model_checkpoint_paths=kept[::-1]
    )
    checkpoints.remove_leftovers(train_dir, kept, step)
    return prefix
