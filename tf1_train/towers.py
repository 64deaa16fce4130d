"""Towers: one model replica per device, and the rules their gradients and
batch statistics follow. How towers share variables (``--variable_update``)
is the mode's business (tf1_train/variable_update/).

The rule in every mode: the update uses the mean over towers of each tower's
mean loss gradient, so N towers x batch B == 1 tower x batch N*B
(docs/PORTING.md P4).

Batch-norm moving statistics follow the same idea: no tower updates the
shared variable itself, since N towers writing one variable in whatever
order the scheduler picks is not deterministic. Each tower records its batch
statistics; one update per moving variable applies
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

from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

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


def build_towers(
    model_fn: Callable,
    tower_inputs: Sequence[Tuple[tf.Tensor, tf.Tensor]],
    num_classes: int,
    plan: devices.DevicePlan,
    mode,
    weight_decay: float,
) -> List[Tower]:
    """Builds the forward and backward pass of every tower, each under the
    device function and variable scope ``mode`` (a variable_update mode)
    gives it."""
    towers = []
    scopes = mode.tower_scopes(plan)
    for i, ((images, labels), (device_fn, scope)) in enumerate(zip(tower_inputs, scopes)):
        device = plan.tower_devices[i]
        recorded = len(v1.get_collection(MOVING_STATS))
        with v1.device(device_fn), scope, tf.name_scope(f"tower_{i}") as name_scope:
            tower = _build_one(
                model_fn, images, labels, num_classes, weight_decay, device, name_scope
            )
        stats = v1.get_collection(MOVING_STATS)[recorded:]
        towers.append(tower._replace(moving_stats=stats))
    check_same_variables(towers, mode)
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


def check_same_variables(towers: Sequence[Tower], mode) -> None:
    """Fails, naming the odd variables, unless all towers have the same list
    (by model name: a replicated copy's ``v{i}/`` does not count)."""

    def names(t):
        return [mode.model_name(v.op.name) for _, v in t.grads_and_vars]

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


def moving_average(record: MovingStat, values: Sequence[tf.Tensor]) -> tf.Operation:
    """``record``'s variable moves toward the mean of the towers' ``values``."""
    var, decay = record.variable, record.decay
    mean = mean_gradient(values, var.op.name)  # the same mean as for gradients
    new = var.read_value() * decay + (1.0 - decay) * mean
    return var.assign(new, read_value=False)
