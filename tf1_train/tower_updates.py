"""UPDATE_OPS that assign variables directly, with more than one tower.

Batch norms that record their statistics (ours, tf1_train.compat's, those
on TensorFlow's ``assign_moving_average``) get one update per variable from
the mean over towers (towers.moving_average). What is left in a tower's
UPDATE_OPS is the user's own: ``tf.assign(moving, moving * d + x * (1 - d))``,
a decay given as a tensor, a counter. tf1_train cannot average those.
Run from every tower, in parameter_server mode N assigns hit one shared
variable each step in no fixed order: the result changes from run to run,
even with ``--deterministic``. So, as tf_cnn_benchmarks did
(``retain_tower_updates``: tower 0's only), parameter_server mode keeps
tower 0's entries for the variables tower 0 updates; replicated mode runs
each tower's on its own copy, and copy 0 is saved and evaluated. Either way
the saved values follow tower 0's batch, and the two modes agree. Both say
so in one line, since a user's 1-tower numbers change with the tower count.
Writes the loss itself depends on (say_forward_writes) cannot be left out:
they are named in one line too.
"""

from __future__ import annotations

from typing import FrozenSet, List, Sequence

import tensorflow as tf

# Updates a layer of ours puts in UPDATE_OPS because they are not moving
# averages (batch renormalization's moving variance follows its moving
# stddev): the line about them names that, not a rewrite the user could make.
NOT_AVERAGES = "tf1_train_not_moving_averages"
WRITES = ("Assign", "ResourceApply", "Apply", "ResourceScatter", "Scatter")
VARIABLE_OPS = ("VarHandleOp", "VariableV2", "Variable")
PASS_THROUGH = ("Identity", "RefIdentity", "IdentityN", "NoOp", "ReadVariableOp")


def written_variables(entry) -> FrozenSet[str]:
    """Names of the variables an UPDATE_OPS entry (an op, a tensor, or what
    ``tf.compat.v1.assign`` returns) assigns, through groups, reads and
    control dependencies. The values assigned are not walked: that would be
    the tower's whole forward pass, and they assign nothing."""
    seen, todo, written = set(), [_op(entry)], set()
    while todo:
        op = todo.pop()
        if op in seen:
            continue
        seen.add(op)
        todo.extend(op.control_inputs)
        if op.type.startswith(WRITES) and op.inputs:
            written.add(_variable_name(op.inputs[0].op))
        elif op.type in PASS_THROUGH:
            todo.extend(t.op for t in op.inputs)
    written.discard("")
    return frozenset(written)


def _variable_name(handle: tf.Operation) -> str:
    while handle.type in PASS_THROUGH and handle.inputs:
        handle = handle.inputs[0].op
    return handle.name if handle.type in VARIABLE_OPS else ""


def _op(entry) -> tf.Operation:
    return entry if isinstance(entry, tf.Operation) else entry.op


def tower_zero_only(update_ops: Sequence[List[tf.Operation]]) -> List[List[tf.Operation]]:
    """parameter_server: each tower's entries minus those of towers 1..N-1
    that assign only variables tower 0's entries assign too."""
    if len(update_ops) < 2:
        return [list(ops) for ops in update_ops]
    writes_0 = [(op, written_variables(op)) for op in update_ops[0]]
    writing = [op for op, writes in writes_0 if writes]
    first = frozenset().union(*[writes for _, writes in writes_0])
    kept, dropped = [list(update_ops[0])], False
    for ops in update_ops[1:]:
        mine = []
        for op in ops:
            writes = written_variables(op)
            if writes and writes <= first:
                dropped = True
            else:
                mine.append(op)
        kept.append(mine)
    if dropped:
        n = len(update_ops)
        _say(
            writing,
            f"tower 0's run, the other towers' are left out (all {n} would assign each "
            f"variable {n} times a step in no fixed order), as tf_cnn_benchmarks did",
        )
    return kept


def each_on_its_copy(update_ops: Sequence[List[tf.Operation]]) -> List[List[tf.Operation]]:
    """replicated: every tower's entries run, each on its own copy."""
    if len(update_ops) > 1:
        writing = [op for op in update_ops[0] if written_variables(op)]
        if writing:
            _say(writing, "each tower's run on its own copy; copy 0's (tower 0's batch) is saved")
    return [list(ops) for ops in update_ops]


def _say(ops: Sequence, what: str) -> None:
    names = ", ".join(_op(op).name for op in ops[:3]) + (", ..." if len(ops) > 3 else "")
    count = f"{len(ops)} UPDATE_OPS entr{'y' if len(ops) == 1 else 'ies'}"
    ours = {_op(op).name for op in tf.compat.v1.get_collection(NOT_AVERAGES)}
    if all(_op(op).name in ours for op in ops):
        how = (
            "they are batch renormalization's (renorm=True), whose moving variance is "
            "derived from its moving stddev, not averaged"
        )
    else:
        how = "write them with assign_moving_average to follow the mean over towers"
    print(
        f"warning: {count} per tower ({names}) assign variables themselves, which tf1_train "
        f"cannot average over towers: {what}; {how}",
        flush=True,
    )


def say_forward_writes(losses: Sequence[tf.Tensor], mode) -> None:
    """A model that writes variables in its forward pass, outside UPDATE_OPS
    (facenet's center loss: ``scatter_sub`` on its class centers under the
    loss's control dependencies) has every tower's write run each step, which
    tf1_train cannot average or leave out as it does UPDATE_OPS. With more
    than one tower, one line says what ``mode`` (a variable-update mode)
    makes of it."""
    if len(losses) < 2:
        return
    writes = _forward_writes(losses[0])
    if not writes:
        return
    names = ", ".join(f"{v} by {t}" for v, t in writes[:3]) + (", ..." if len(writes) > 3 else "")
    print(
        f"warning: the model writes variables in its forward pass, outside UPDATE_OPS "
        f"({names}): {mode.forward_writes(len(losses))}; with one tower it is the TF1 "
        "program's own numbers",
        flush=True,
    )


def _forward_writes(loss: tf.Tensor) -> List[tuple]:
    """(variable, op type) of every write the loss depends on, through its
    inputs and control dependencies, by variable name."""
    seen, todo, found = set(), [loss.op], {}
    while todo:
        op = todo.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type.startswith(WRITES) and op.inputs:
            variable = _variable_name(op.inputs[0].op)
            if variable:
                found.setdefault(variable, op.type)
        todo.extend(op.control_inputs)
        todo.extend(t.op for t in op.inputs)
    return sorted(found.items())
