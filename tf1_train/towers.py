"""Towers: one model replica per device, and how their gradients meet.

Two ``--variable_update`` modes, as in tf_cnn_benchmarks:

* ``parameter_server``: every variable exists once, on the parameter
  device(s). Towers are built under ``reuse=True`` so they share it; each
  gradient is averaged over towers on the device of its variable.
* ``replicated``: tower i keeps its own copy under ``v{i}/``. Gradients are
  all-reduced (every tower computes the same mean on its own device) and each
  copy applies it, so the copies stay identical. Checkpoints hold tower 0's
  copies under the parameter_server names, so both modes read each other's
  checkpoints.

The rule in both: the update uses the mean over towers of each tower's mean
loss gradient, so N towers x batch B == 1 tower x batch N*B (PITFALLS 4).

Batch-norm moving statistics follow the same idea (``moving_average_updates``):
no tower updates the shared variable itself, since N towers writing one
variable in whatever order the scheduler picks is not deterministic. Each
tower records its batch statistics; one update per moving variable applies
``moving = moving * decay + (1 - decay) * mean_over_towers(batch statistic)``,
next to the variable, with the train op. In replicated mode every copy gets
that same update, so the copies stay identical. This is what TF2's
MirroredStrategy does (a MEAN-aggregated assign of a SyncOnRead variable).
The mean of the towers' variances leaves out the variance between the tower
means, so with towers the moving variance is slightly below that of one
N*B batch, exactly as with MirroredStrategy. Per-tower batch statistics
also mean that, for a batch-norm model, N towers x B normalise differently
from 1 tower x N*B; the gradient rule above holds per tower.
"""

from __future__ import annotations

import contextlib
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train import devices
from tf1_train.models.layers import MOVING_STATS, MovingStat

v1 = tf.compat.v1

GradsAndVars = List[Tuple[Optional[tf.Tensor], tf.Variable]]


class Tower(NamedTuple):
    """What one tower built."""

    device: str
    loss: tf.Tensor  # this tower's mean cross-entropy plus weight decay
    grads_and_vars: GradsAndVars
    update_ops: List[tf.Operation]  # from UPDATE_OPS, in this tower's scope
    moving_stats: List[MovingStat]  # batch statistics its batch-norm layers recorded


def replica_prefix(tower: int) -> str:
    return f"v{tower}/"


def checkpoint_name(var: tf.Variable, variable_update: str) -> Optional[str]:
    """The name a variable is saved under, or None if it is not saved.

    Replicated copies of tower i > 0 are not saved; tower 0's lose the
    ``v0/`` prefix so checkpoints match parameter_server mode's.
    """
    name = var.op.name
    if variable_update != "replicated" or not name.startswith("v"):
        return name
    head, _, rest = name.partition("/")
    if not head[1:].isdigit() or not rest:
        return name
    return rest if head == "v0" else None


def checkpoint_variables(variable_update: str) -> Dict[str, tf.Variable]:
    """name -> variable for the Saver: every variable exactly once."""
    out = {}
    for var in v1.global_variables():
        name = checkpoint_name(var, variable_update)
        if name is not None:
            out[name] = var
    return out


def build_towers(
    model_fn: Callable,
    tower_inputs: Sequence[Tuple[tf.Tensor, tf.Tensor]],
    num_classes: int,
    plan: devices.DevicePlan,
    variable_update: str,
    weight_decay: float,
) -> List[Tower]:
    """Builds the forward and backward pass of every tower."""
    strategy = None
    if len(plan.param_devices) > 1 or plan.cluster is not None:
        strategy = devices.GreedyByBytes(plan.param_devices)
    towers = []
    for i, (images, labels) in enumerate(tower_inputs):
        device = plan.tower_devices[i]
        if variable_update == "replicated":
            device_fn = device  # each copy lives with its tower
            scope = v1.variable_scope(replica_prefix(i)[:-1])
        else:
            device_fn = devices.tower_device_fn(device, plan.param_devices, strategy, plan.cluster)
            scope = v1.variable_scope(v1.get_variable_scope(), reuse=i > 0)
        recorded = len(v1.get_collection(MOVING_STATS))
        with v1.device(device_fn), scope, tf.name_scope(f"tower_{i}") as name_scope:
            tower = _build_one(
                model_fn, images, labels, num_classes, weight_decay, device, name_scope
            )
        stats = v1.get_collection(MOVING_STATS)[recorded:]
        towers.append(tower._replace(moving_stats=stats))
    check_same_variables(towers, variable_update)
    return towers


def _build_one(model_fn, images, labels, num_classes, weight_decay, device, name_scope):
    var_scope = v1.get_variable_scope().name
    logits = model_fn(images, True, num_classes)
    xent = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        name="xent",
    )
    params = v1.trainable_variables(scope=var_scope or None)
    loss = xent
    if weight_decay > 0:
        weights = [v for v in params if v.op.name.endswith("/weights")]
        l2 = tf.add_n([tf.nn.l2_loss(w) for w in weights])
        loss = tf.add(xent, weight_decay * l2, name="loss")
    grads = v1.gradients(loss, params, colocate_gradients_with_ops=True)
    updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS, scope=name_scope)
    return Tower(device, loss, list(zip(grads, params)), updates, [])


def check_same_variables(towers: Sequence[Tower], variable_update: str) -> None:
    """Fails, naming the odd variables, unless all towers have the same list."""

    def names(t):
        return [
            checkpoint_name(v, "parameter_server").split("/", 1)[-1]
            if variable_update == "replicated"
            else v.op.name
            for _, v in t.grads_and_vars
        ]

    first = names(towers[0])
    for i, tower in enumerate(towers[1:], start=1):
        other = names(tower)
        if other != first:
            missing = sorted(set(first) - set(other))
            extra = sorted(set(other) - set(first))
            raise ValueError(
                f"tower {i} has different variables than tower 0: "
                f"missing {missing}, extra {extra}"
                + ("" if missing or extra else " (same names, different order)")
            )


def mean_gradient(grads: Sequence, name: str) -> Optional[tf.Tensor]:
    """Mean of one variable's gradients over towers.

    ``None`` from every tower stays ``None`` (the optimizer skips it); ``None``
    from only some towers is a bug in the model and raises. IndexedSlices
    (from tf.gather / embeddings) are concatenated, not densified, and scaled.
    """
    present = [g for g in grads if g is not None]
    if not present:
        return None
    if len(present) != len(grads):
        raise ValueError(
            f"variable {name}: {len(grads) - len(present)} of {len(grads)} "
            "towers produced no gradient"
        )
    scale = 1.0 / len(grads)
    if all(isinstance(g, tf.IndexedSlices) for g in grads):
        return tf.IndexedSlices(
            tf.concat([g.values for g in grads], 0) * scale,
            tf.concat([g.indices for g in grads], 0),
            grads[0].dense_shape,
        )
    dense = [tf.convert_to_tensor(g) for g in grads]
    if len(dense) == 1:
        return dense[0]
    return tf.multiply(tf.add_n(dense), scale)


def average_gradients(towers: Sequence[Tower]) -> GradsAndVars:
    """parameter_server: one mean per variable, computed next to it."""
    averaged = []
    for per_var in zip(*[t.grads_and_vars for t in towers]):
        var = per_var[0][1]
        with v1.colocate_with(var):
            grad = mean_gradient([g for g, _ in per_var], var.op.name)
        averaged.append((grad, var))
    return averaged


def all_reduce_gradients(towers: Sequence[Tower]) -> List[GradsAndVars]:
    """replicated: every tower computes the same mean on its own device.

    The inputs and their order are identical on every device, so the copies
    receive bit-identical updates and never drift apart.
    """
    per_tower = [[] for _ in towers]
    for j, per_var in enumerate(zip(*[t.grads_and_vars for t in towers])):
        grads = [g for g, _ in per_var]
        for i, tower in enumerate(towers):
            var = tower.grads_and_vars[j][1]
            with tf.device(tower.device):
                per_tower[i].append((mean_gradient(grads, var.op.name), var))
    return per_tower


def moving_average_updates(towers: Sequence[Tower], variable_update: str) -> List[tf.Operation]:
    """One update per moving variable from the mean over towers (module doc).

    parameter_server: every tower recorded the same shared variable; its
    update is computed next to it. replicated: tower i recorded its own copy;
    each copy's update is computed on its tower's device from the same
    inputs in the same order, so all copies receive bit-identical values.
    """
    updates = []
    for records in zip(*[t.moving_stats for t in towers]):
        values = [r.value for r in records]
        if variable_update == "replicated":
            for record, tower in zip(records, towers):
                with tf.device(tower.device):
                    updates.append(_moving_average(record, values))
        else:
            with v1.colocate_with(records[0].variable):
                updates.append(_moving_average(records[0], values))
    return updates


def _moving_average(record: MovingStat, values: Sequence[tf.Tensor]) -> tf.Operation:
    var, decay = record.variable, record.decay
    mean = mean_gradient(values, var.op.name)  # the same mean as for gradients
    new = var.read_value() * decay + (1.0 - decay) * mean
    return var.assign(new, read_value=False)


def broadcast_ops(num_towers: int) -> List[tf.Operation]:
    """replicated: copies tower 0's variables into the other towers' copies.

    Run after initialization and after a restore (checkpoints hold tower 0's
    copy only), before the first step.
    """
    by_name = {v.op.name: v for v in v1.global_variables()}
    ops = []
    for name, var in sorted(by_name.items()):
        if not name.startswith(replica_prefix(0)):
            continue
        rest = name[len(replica_prefix(0)) :]
        for i in range(1, num_towers):
            copy = by_name.get(replica_prefix(i) + rest)
            if copy is not None:
                ops.append(copy.assign(var.read_value()).op)
    return ops


@contextlib.contextmanager
def eval_scope(variable_update: str):
    """Variable scope for an eval replica that reuses tower 0's variables."""
    if variable_update == "replicated":
        with v1.variable_scope(replica_prefix(0)[:-1], reuse=True):
            yield
    else:
        with v1.variable_scope(v1.get_variable_scope(), reuse=True):
            yield
