"""tf.data pipelines: exact-resume shuffling, per-tower batches, eval batches.

Training order is a pure function of (seed, step): epoch ``e`` is the training
set shuffled with seed ``(seed, e)``, and a run that starts at global step
``k`` skips exactly the ``k * global_batch`` examples it already consumed.
That is what makes a resumed ``--deterministic`` run end bit-identical to one
that never stopped, without storing iterator state in the checkpoint.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np
import tensorflow as tf

from tf1_train.data.source import ArraySource

v1 = tf.compat.v1


def train_dataset(
    source: ArraySource,
    global_batch: int,
    seed: int,
    start_step=0,
    num_shards: int = 1,
    shard_index: int = 0,
) -> tf.data.Dataset:
    """Endless batches of (float images, int32 labels) starting at a step.

    Args:
      source: the examples.
      global_batch: examples per step in this process (batch_size x towers).
      seed: the data seed; epoch e is shuffled with (seed, e).
      start_step: the step to start at; may be a tensor (a placeholder fed
        when the iterator is initialised after a restore).
      num_shards, shard_index: this worker's share of the training set
        (between-graph training: every num_shards-th example, one shard per
        worker, so workers never train on the same example in an epoch).
    """
    n = len(range(shard_index, source.num_train, num_shards))
    examples = tf.data.Dataset.from_tensor_slices(
        (source.train_images, source.train_labels.astype(np.int32))
    ).shard(num_shards, shard_index)
    consumed = tf.cast(start_step, tf.int64) * global_batch
    first_epoch, offset = consumed // n, consumed % n

    def one_epoch(epoch):
        epoch_seed = tf.cast(seed, tf.int64) * 1_000_003 + epoch
        return examples.shuffle(n, seed=epoch_seed, reshuffle_each_iteration=False)

    ds = tf.data.Dataset.range(first_epoch, np.iinfo(np.int64).max)
    ds = ds.flat_map(one_epoch).skip(offset)
    ds = ds.batch(global_batch, drop_remainder=True)
    ds = ds.map(lambda x, y: (normalize(x, source.scale), y))
    return ds.prefetch(2)


def eval_dataset(source: ArraySource, batch_size: int) -> tf.data.Dataset:
    """The test split once, in order, the last batch possibly short."""
    ds = tf.data.Dataset.from_tensor_slices(
        (source.test_images, source.test_labels.astype(np.int32))
    )
    ds = ds.batch(batch_size)
    return ds.map(lambda x, y: (normalize(x, source.scale), y)).prefetch(2)


def normalize(images: tf.Tensor, scale: float) -> tf.Tensor:
    return tf.cast(images, tf.float32) * (1.0 / scale)


def split_for_towers(
    images: tf.Tensor, labels: tf.Tensor, num_towers: int
) -> List[Tuple[tf.Tensor, tf.Tensor]]:
    """Splits one global batch into equal per-tower slices, in order.

    Tower i gets examples [i*B, (i+1)*B): the same data a single tower with
    batch N*B sees, which the N-towers-equals-one-big-batch test relies on.
    """
    if num_towers == 1:
        return [(images, labels)]
    return list(zip(tf.split(images, num_towers, axis=0), tf.split(labels, num_towers, axis=0)))
