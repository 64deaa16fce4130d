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

from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import tensorflow as tf
from tensorflow.python.training import moving_averages  # zero_debias has no public twin

from tf1_train import devices, models, tower_updates
from tf1_train import precision as precisionlib
from tf1_train.errors import UserError
from tf1_train.models import calls, outputs
from tf1_train.models.layers import MOVING_STATS, MovingStat, recording_moving_stats

v1 = tf.compat.v1

GradsAndVars = List[Tuple[Optional[tf.Tensor], tf.Variable]]
# Variables --weight_decay applies to: the built-in models' kernels are
# ``.../weights``; tf.layers-style models name them ``.../kernel``.
DECAYED = ("/weights", "/kernel")


class LossTerms(NamedTuple):
    """What one tower's loss is made of, for the start-up line and the tests."""

    data: tf.Tensor  # the data loss, mean over the tower's batch
    regularization: List[tf.Tensor]  # REGULARIZATION_LOSSES terms this tower includes
    collected: List[tf.Tensor]  # terms of the "losses" collection made in this tower
    weight_decay: Optional[tf.Tensor] = None  # --weight_decay * L2, if set
    in_data: Tuple[str, ...] = ()  # 'losses' terms --loss made: the data loss itself
    end_points: Tuple[str, ...] = ()  # the keys of the model's end points --loss was given


class Tower(NamedTuple):
    """What one tower built."""

    device: str
    loss: tf.Tensor  # data loss + the model's own loss terms (or weight decay)
    grads_and_vars: GradsAndVars
    update_ops: List[tf.Operation]  # from UPDATE_OPS, in this tower's scope
    moving_stats: List[MovingStat]  # batch statistics its batch-norm layers recorded
    terms: Optional[LossTerms] = None
    summaries: Tuple[tf.Tensor, ...] = ()  # the model's own, from SUMMARIES in this tower's scope


def build_towers(
    model_fn: Callable,
    tower_inputs: Sequence[Tuple[tf.Tensor, tf.Tensor]],
    num_classes: int,
    plan: devices.DevicePlan,
    mode,
    weight_decay: float,
    loss_fn: Optional[Callable] = None,
    precision: precisionlib.Precision = precisionlib.FP32,
) -> List[Tower]:
    """Builds the forward and backward pass of every tower, each under the
    device function and variable scope ``mode`` (a variable_update mode)
    gives it.

    A tower's loss is its data loss (``loss_fn(labels, logits)``, default
    softmax cross-entropy) plus every loss term the model made: the
    ``losses`` collection's terms made under the tower's name scope (the
    CIFAR-10 tutorial's ``get_collection('losses', scope)``), and the
    REGULARIZATION_LOSSES terms: those computed from the tower's batch
    (activity regularizers) count for that tower only; those a variable's
    regularizer made (once, when the variable is created) count for every
    tower that uses the variable, as the mode says (``regularization_terms``).

    Legacy batch norms record their batch statistics for the mean-over-towers
    update while the towers are built (``recording_moving_stats``).

    ``precision``: with bf16 or fp16 the tower sees its variables and input
    cast to that type and its logits come back in float32 (precision.py).
    """
    towers, made = [], []
    scopes = mode.tower_scopes(plan)
    for i, ((images, labels), (device_fn, scope)) in enumerate(zip(tower_inputs, scopes)):
        device = plan.tower_devices[i]
        recorded = len(v1.get_collection(MOVING_STATS))
        cast = precisionlib.tower_scope(precision)
        tower_scope = tf.name_scope(f"tower_{i}")
        with v1.device(device_fn), scope, cast, recording_moving_stats(), tower_scope as name_scope:
            var_scope = v1.get_variable_scope().name
            x = precisionlib.to_compute(images, precision)
            out, own = _forward(model_fn, x, num_classes, labels)
            logits, end_points = outputs.split(out, loss_fn, _model_flag(model_fn))
            logits = precisionlib.to_float32(logits)
            end_points = outputs.float32_end_points(end_points)
            reads = [_reads(t, images) for t in own]
            per_tower = [t for t, r in zip(own, reads) if r]
            made.append([t for t, r in zip(own, reads) if not r])
            regularization = mode.regularization_terms(made) + per_tower
            tower = _loss_and_gradients(
                logits, labels, regularization, weight_decay, (loss_fn, end_points), device,
                name_scope, var_scope, precision,
            )  # fmt: skip
        stats = v1.get_collection(MOVING_STATS)[recorded:]
        towers.append(tower._replace(moving_stats=stats))
    check_same_variables(towers, mode)
    check_losses_are_claimed(towers)
    check_updates_are_claimed(towers)
    # Each Tower holds its records now; left in the graph, the NamedTuples
    # make every checkpoint's MetaGraph export log a serialization warning.
    v1.get_default_graph().clear_collection(MOVING_STATS)
    runs = mode.tower_updates([t.update_ops for t in towers])
    tower_updates.say_forward_writes([t.loss for t in towers], mode)
    return [t._replace(update_ops=ops) for t, ops in zip(towers, runs)]


def _reads(term: tf.Tensor, images: tf.Tensor) -> bool:
    """Whether a loss term is computed from the tower's batch (an activity
    regularizer: this tower's alone) rather than from variables only (a
    variable's regularizer, counted as the mode shares the variable). Not
    by name scope: TensorFlow's own legacy layers, which tf-slim's conv2d and
    fully_connected use, make a kernel's term inside the tower's name scope,
    once, in the tower that creates the variable."""
    return models.depends_on(term, images)


def _forward(model_fn, images, num_classes, labels):
    """(what the model returned, the REGULARIZATION_LOSSES terms it made
    while building); the tower's labels to a model that takes them."""
    key = v1.GraphKeys.REGULARIZATION_LOSSES
    before = len(v1.get_collection(key))
    out = calls.call_model(model_fn, images, True, num_classes, labels)
    return out, v1.get_collection(key)[before:]


def _model_flag(model_fn) -> str:
    return f"--model={getattr(model_fn, 'flag_value', getattr(model_fn, '__name__', '?'))}"


def data_loss(
    labels: tf.Tensor,
    logits: tf.Tensor,
    loss_fn: Optional[Callable],
    end_points: Optional[Dict] = None,
) -> tf.Tensor:
    """Mean over the tower's batch of ``loss_fn`` (per-example or already a
    mean; given the model's end points if it returned them), or of softmax
    cross-entropy."""
    if loss_fn is None:
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        return tf.reduce_mean(xent, name="xent")
    loss = tf.convert_to_tensor(outputs.call_loss(loss_fn, labels, logits, end_points))
    if loss.shape.rank == 1:
        return tf.reduce_mean(loss, name="data_loss")
    return tf.identity(loss, name="data_loss")


def _loss_and_gradients(
    logits, labels, regularization, weight_decay, loss_in, device, scope, var, precision
):
    loss_fn, end_points = loss_in  # --loss and the end points it is given
    before = len(v1.get_collection(v1.GraphKeys.LOSSES))
    data = data_loss(labels, logits, loss_fn, end_points)
    params = v1.trainable_variables(scope=var or None)
    collected, own = collected_terms(data, before, scope, loss_fn)
    decay = None
    if weight_decay > 0:
        decay = _weight_decay(weight_decay, params, regularization + collected)
    loss = data
    if regularization or collected:
        loss = tf.add_n([data, *[tf.cast(t, tf.float32) for t in regularization + collected]])
    if decay is not None:
        loss = tf.add(loss, decay, name="loss")
    scaled = precisionlib.scaled(loss, precision)  # the loss itself without loss scaling
    grads = v1.gradients(scaled, params, colocate_gradients_with_ops=True)
    updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS, scope=scope)
    own_summaries = tuple(v1.get_collection(v1.GraphKeys.SUMMARIES, scope=scope))
    points = tuple(sorted(end_points or ()))
    terms = LossTerms(data, regularization, collected, decay, own, points)
    return Tower(device, loss, list(zip(grads, params)), updates, [], terms, own_summaries)


def collected_terms(data: tf.Tensor, before: int, scope: str, loss_fn: Optional[Callable]):
    """(the 'losses' terms of the tower's scope, the names of those that are
    the data loss itself). ``tf.compat.v1.losses.*`` in --loss put the data
    loss in the collection too: counting it again would double the loss and
    its gradient. ``before``: the collection's length before --loss ran."""
    inside = models.ancestors(data)
    made = v1.get_collection(v1.GraphKeys.LOSSES)[before:]
    own = tuple(t.name for t in made if t.op in inside)
    in_scope = v1.get_collection(v1.GraphKeys.LOSSES, scope=scope)
    keys = (v1.GraphKeys.LOSSES, v1.GraphKeys.REGULARIZATION_LOSSES)
    others = [t for k in keys for t in v1.get_collection(k) if t.name not in own]
    _refuse_terms_counted_twice(inside, others, loss_fn)
    return [t for t in in_scope if t.name not in own], own


def _refuse_terms_counted_twice(inside: set, terms, loss_fn) -> None:
    """A TF1 model_fn's loss was often ``xent + get_regularization_loss()``
    or ``get_total_loss()``; as --loss that adds the model's terms a second
    time, since every tower's loss already includes them, and from the
    second tower on the other towers' terms too (the collections are the
    graph's, not the tower's)."""
    names = {op.name for op in inside}
    twice = [t for t in terms if t.op in inside or _lazy_term_read(t, names)]
    if twice:
        name = getattr(loss_fn, "flag_value", None) or getattr(loss_fn, "__name__", "loss")
        raise UserError(
            f"--loss={name}: the loss it returns includes {len(twice)} term(s) of the "
            f"graph's loss collections (e.g. {twice[0].name}: get_regularization_loss() or "
            "get_total_loss()?); tf1_train adds the model's terms to each tower's loss "
            "itself: return the data loss only"
        )


def _lazy_term_read(term, op_names: set) -> bool:
    """``get_variable``'s regularizer terms are lazy: each use re-runs the
    regularizer under ``<variable>/Regularizer/``, so a sum of them has ops
    of that scope, not the term's own op."""
    name, mark = term.op.name, "/Regularizer/"
    if type(term).__name__ != "_LazyEvalTensor" or mark not in name:
        return False
    scope = name[: name.index(mark) + len(mark)]  # a regularizer's own scope is made unique
    return any(n.startswith(scope) for n in op_names)


def _weight_decay(weight_decay: float, params, own_terms) -> tf.Tensor:
    """--weight_decay * the L2 of the model's kernels; refused for a model
    with loss terms of its own (the two would add up unnoticed)."""
    if own_terms:
        raise UserError(
            f"--weight_decay={weight_decay}: the model adds its own regularization "
            f"({len(own_terms)} loss term(s), e.g. {own_terms[0].name}); use one or the other"
        )
    weights = [v for v in params if v.op.name.endswith(DECAYED)]
    if not weights:
        raise UserError(
            f"--weight_decay={weight_decay}: the model has no trainable variable named "
            f".../{DECAYED[0][1:]} or .../{DECAYED[1][1:]} to decay"
        )
    return weight_decay * tf.add_n([tf.nn.l2_loss(w) for w in weights])


def check_losses_are_claimed(towers: Sequence[Tower]) -> None:
    """A "losses" collection term made outside every tower would be in no
    tower's loss: say so rather than drop it."""
    claimed = {t.name for tower in towers for t in tower.terms.collected}
    claimed.update(n for tower in towers for n in tower.terms.in_data)
    lost = [t.name for t in v1.get_collection(v1.GraphKeys.LOSSES) if t.name not in claimed]
    if lost:
        print(
            f"warning: {len(lost)} term(s) of the 'losses' collection were made outside every "
            f"tower's name scope ({', '.join(lost[:3])}{', ...' if len(lost) > 3 else ''}): "
            f"they are in no tower's loss{_by_a_regularizer(lost)}",
            flush=True,
        )


def _by_a_regularizer(lost) -> str:
    """Why a get_variable regularizer's own additions to 'losses' are lost,
    and more of them than TF 1.x made (tf1_train.compat._regularizers)."""
    if not any("/Regularizer/" in name for name in lost):
        return ""
    return (
        "; a regularizer= function that adds its loss to 'losses' runs under "
        "<variable>/Regularizer/, and TensorFlow 2 runs it again at each use of "
        "REGULARIZATION_LOSSES: have it return the loss only (every tower's loss "
        "includes the REGULARIZATION_LOSSES terms)"
    )


def check_updates_are_claimed(towers: Sequence[Tower]) -> None:
    """Each tower runs the UPDATE_OPS made under its name scope; one made
    outside all of them (an absolute name scope, a re-entered captured
    variable scope) would never run: say so rather than drop it."""
    claimed = {op.name for tower in towers for op in tower.update_ops}
    lost = [u.name for u in v1.get_collection(v1.GraphKeys.UPDATE_OPS) if u.name not in claimed]
    if lost:
        print(
            f"warning: {len(lost)} UPDATE_OPS entr{'y was' if len(lost) == 1 else 'ies were'} "
            f"made outside every tower's name scope ({', '.join(lost[:3])}"
            f"{', ...' if len(lost) > 3 else ''}): they do not run with the train op",
            flush=True,
        )


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
    if record.debias:  # TensorFlow's own update, its biased/local_step variables included
        return moving_averages.assign_moving_average(var, mean, decay, zero_debias=True).op
    new = var.read_value() * decay + (1.0 - decay) * mean
    return var.assign(new, read_value=False)
