"""The TF2 training step: MirroredStrategy's version of the TF1 towers.

One global batch is split in order, replica i taking examples [i*B, (i+1)*B)
as tower i does in the TF1 graph. Each replica's loss is scaled by
``compute_average_loss(global_batch_size=N*B)`` and its weight decay by
``scale_regularization_loss`` (1/N), so the SUM of replica gradients equals
the TF1 mean of tower gradients (PORTING.md P5). Gradients are summed across
replicas in cross-replica context, then every device applies the same update
to its copy: TF1's replicated mode.
"""

from __future__ import annotations

from typing import Callable, Dict, NamedTuple, Optional, Sequence

import tensorflow as tf

from tf1_train.data import user_input
from tf1_train.models import outputs
from tf1_train.tf2 import models, optim
from tf1_train.tf2 import precision as precisionlib
from tf1_train.tf2.averages import WeightAverages

SUM = tf.distribute.ReduceOp.SUM


class Steps(NamedTuple):
    """The compiled functions of a TF2 run."""

    train: Callable  # (uint8 global batch images, labels) -> mean loss
    train_on_replicas: Callable  # (PerReplica images, labels) -> mean loss
    eval: Callable  # (uint8 images, labels) -> (correct, count, float32 logits)


def make_steps(
    strategy: tf.distribute.Strategy,
    model: models.Model,
    optimizer: optim.Optimizer,
    global_batch: int,
    weight_decay: float,
    scale: Optional[float],
    loss_fn: Optional[Callable] = None,
    clip_norm: float = 0.0,
    averages: Optional[WeightAverages] = None,
    compute: tf.DType = tf.float32,
    loss_scale: Optional[precisionlib.LossScale] = None,
) -> Steps:
    """Builds the train steps (global batch or per-replica input) and eval.

    ``scale`` None: the input is already what the model takes (--preprocess).
    ``loss_fn(labels, logits)``: the user's data loss, per example or a mean
    over the replica's batch (--loss); default softmax cross-entropy.
    ``clip_norm`` > 0: the summed (mean) gradient is clipped to that global
    norm on every device before the update (TF1: ``Mode.clip``);
    ``averages``: stepped after every update (--moving_average_decay).
    ``compute``: the replicas' type (--precision); ``loss_scale``: fp16's.
    """
    trainables = model.trainable_by_name
    names = list(trainables)
    variables = [trainables[n] for n in names]
    decayed = [v for n, v in trainables.items() if n.endswith("/weights")]
    moving = model.moving_by_name
    per_replica = global_batch // strategy.num_replicas_in_sync

    def replica_step(images, labels):
        # Each replica normalises its uint8 slice on its own device, as TF1 towers do.
        x = precisionlib.to_compute(normalize(images, scale), compute)
        stats = {}
        with tf.GradientTape() as tape:
            given = {"labels": labels} if model.takes_labels else {}  # models/calls.py
            out = model(x, training=True, stats=stats, **given)
            logits, end_points = outputs.split(out, loss_fn, "--tf2_model")
            logits = tf.cast(logits, tf.float32)
            end_points = outputs.float32_end_points(end_points)
            loss = replica_loss(labels, logits, global_batch, loss_fn, end_points)
            extra = model.extra_losses()
            if extra:  # the TF1 towers' regularization and 'losses' terms
                own = tf.add_n([tf.cast(t, tf.float32) for t in extra])
                loss += tf.nn.scale_regularization_loss(own)
            if weight_decay > 0:
                l2 = tf.add_n([tf.nn.l2_loss(w) for w in decayed])
                loss += tf.nn.scale_regularization_loss(weight_decay * l2)
            target = loss_scale.scaled(loss) if loss_scale is not None else loss
        return loss, tape.gradient(target, variables), [stats[n] for n in moving]

    def sliced_step(images, labels):
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        part = slice(i * per_replica, (i + 1) * per_replica)
        return replica_step(images[part], labels[part])

    def clip(grads):
        return tf.clip_by_global_norm(grads, clip_norm)[0]

    def update(reduced):
        if clip_norm > 0:  # each device clips its copy: identical norms, identical results
            reduced = strategy.run(clip, args=(reduced,))
        optimizer.apply(strategy, list(zip(reduced, names)), trainables)

    def skip():  # an overflowing fp16 step: no update, the step advances
        strategy.extended.update(optimizer.step, lambda s: s.assign_add(1))

    # Cross-replica bookkeeping without tensor-dependent Python control flow
    # (fp16's skip is an explicit tf.cond): not rewritten by autograph at
    # each trace (ResNet-56 on 2 replicas: 14.8 s -> 12.1 s to 51 steps,
    # the same numbers). The model's call is still converted for its user.
    @tf.autograph.experimental.do_not_convert
    def apply(losses, grads, stats):
        reduced = strategy.extended.batch_reduce_to(SUM, list(zip(grads, variables)))
        precisionlib.apply_if_finite(strategy, reduced, loss_scale, update, skip)
        update_moving_statistics(strategy, moving, stats, model.moving_decays)
        if averages is not None:
            averages.update(strategy, optimizer.step)
        return strategy.reduce(SUM, losses, axis=None)

    @tf.function
    def train(images, labels):
        return apply(*strategy.run(sliced_step, args=(images, labels)))

    @tf.function
    def train_on_replicas(images, labels):
        return apply(*strategy.run(replica_step, args=(images, labels)))

    return Steps(train, train_on_replicas, make_eval_step(model, scale, compute))


def normalize(images: tf.Tensor, scale: Optional[float]) -> tf.Tensor:
    """uint8 pixels -> [0, 1], or the user's preprocessed images as they are."""
    if scale is None:
        return images
    return tf.cast(images, tf.float32) * (1.0 / scale)


def replica_loss(labels, logits, global_batch: int, loss_fn=None, end_points=None) -> tf.Tensor:
    """This replica's share of the global mean data loss: summed over
    replicas, it is the TF1 towers' mean of tower means."""
    if loss_fn is None:
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    else:
        per_example = tf.convert_to_tensor(outputs.call_loss(loss_fn, labels, logits, end_points))
    if per_example.shape.rank == 1:
        return tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
    replicas = tf.distribute.get_replica_context().num_replicas_in_sync
    return per_example / replicas


def update_moving_statistics(
    strategy, moving: Dict[str, tf.Variable], stats, decays: Sequence[float]
) -> None:
    """moving = decay * moving + (1 - decay) * mean over replicas of the batch
    statistic, each with its batch norm's decay: TF1's one update per moving
    variable (towers.moving_average_updates)."""
    if not moving:
        return
    n = strategy.num_replicas_in_sync
    summed = strategy.extended.batch_reduce_to(SUM, list(zip(stats, moving.values())))
    for var, total, decay in zip(moving.values(), summed, decays):
        strategy.extended.update(var, moving_average, args=(total, n, decay))


def moving_average(var: tf.Variable, total, replicas: int, decay: float):
    """``var``'s update from ``total``, the sum of ``replicas`` batch
    statistics (the TF2 step's, and port check's slices: port/user_side.py)."""
    mean = total if replicas == 1 else total * (1.0 / replicas)
    return var.assign(var * decay + (1.0 - decay) * mean)


def synthetic_batches(
    strategy: tf.distribute.Strategy, batch_size: int, source, seed: int, preprocess=None
):
    """One random batch per replica, made on its device once (no host copy),
    like the TF1 towers' synthetic local variables (passed through the user's
    --preprocess as the TF1 towers' are)."""

    def make(ctx):
        i = ctx.replica_id_in_sync_group
        shape = [batch_size, *source.image_shape]
        pixels = tf.random.stateless_uniform(shape, [seed, 2 * i], maxval=256, dtype=tf.int32)
        labels = tf.random.stateless_uniform(
            [batch_size], [seed, 2 * i + 1], maxval=source.num_classes, dtype=tf.int32
        )
        images = tf.cast(pixels, tf.float32)
        if preprocess is not None:
            positions = tf.range(i * batch_size, (i + 1) * batch_size, dtype=tf.int64)
            return user_input.apply(
                preprocess, images, labels, positions, source.scale, training=True
            )
        return images, labels

    images = strategy.experimental_distribute_values_from_function(lambda c: make(c)[0])
    labels = strategy.experimental_distribute_values_from_function(lambda c: make(c)[1])
    return images, labels


def make_eval_step(
    model: models.Model, scale: Optional[float], compute: tf.DType = tf.float32
) -> Callable:
    """``(uint8 images, labels) -> (correct, count, float32 logits)`` with
    moving statistics (the logits for --eval_metrics)."""

    @tf.function
    def eval_step(images, labels):
        x = precisionlib.to_compute(normalize(images, scale), compute)
        given = {"labels": labels} if model.takes_labels else {}  # Estimator's EVAL did
        logits = outputs.logits_of(model(x, training=False, **given))
        predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
        correct = tf.reduce_sum(tf.cast(tf.equal(predictions, labels), tf.int64))
        return correct, tf.size(labels, out_type=tf.int64), tf.cast(logits, tf.float32)

    return eval_step
