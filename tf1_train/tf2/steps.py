"""The TF2 training step: MirroredStrategy's version of the TF1 towers.

One global batch is split in order, replica i taking examples [i*B, (i+1)*B)
as tower i does in the TF1 graph. Each replica's loss is scaled by
``compute_average_loss(global_batch_size=N*B)`` and its weight decay by
``scale_regularization_loss`` (1/N), so the SUM of replica gradients equals
the TF1 mean of tower gradients (PITFALLS 5). Gradients are summed across
replicas in cross-replica context, then every device applies the same update
to its copy: TF1's replicated mode.
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

from tf1_train.tf2 import models, optim

SUM = tf.distribute.ReduceOp.SUM


def make_train_step(
    strategy: tf.distribute.Strategy,
    model: models.Model,
    optimizer: optim.Optimizer,
    global_batch: int,
    weight_decay: float,
) -> Callable:
    """Returns ``step(images, labels) -> mean loss`` as a tf.function."""
    trainables = model.trainable_by_name
    names = list(trainables)
    variables = [trainables[n] for n in names]
    decayed = [v for n, v in trainables.items() if n.endswith("/weights")]
    per_replica = global_batch // strategy.num_replicas_in_sync

    def replica_step(images, labels):
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        x = images[i * per_replica : (i + 1) * per_replica]
        y = labels[i * per_replica : (i + 1) * per_replica]
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            loss = tf.nn.compute_average_loss(xent, global_batch_size=global_batch)
            if weight_decay > 0:
                l2 = tf.add_n([tf.nn.l2_loss(w) for w in decayed])
                loss += tf.nn.scale_regularization_loss(weight_decay * l2)
        return loss, tape.gradient(loss, variables)

    @tf.function
    def step(images, labels):
        losses, grads = strategy.run(replica_step, args=(images, labels))
        reduced = strategy.extended.batch_reduce_to(SUM, list(zip(grads, variables)))
        optimizer.apply(strategy, list(zip(reduced, names)), trainables)
        return strategy.reduce(SUM, losses, axis=None)

    return step


def make_eval_step(model: models.Model) -> Callable:
    """``(images, labels) -> (correct, count)`` with moving statistics."""

    @tf.function
    def eval_step(images, labels):
        logits = model(images, training=False)
        predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
        correct = tf.reduce_sum(tf.cast(tf.equal(predictions, labels), tf.int64))
        return correct, tf.size(labels, out_type=tf.int64)

    return eval_step
