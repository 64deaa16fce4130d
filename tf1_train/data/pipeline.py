"""tf.data pipelines: exact-resume shuffling, per-tower batches, eval batches.

Training order is a pure function of (seed, step): epoch ``e`` is the
(worker's shard of the) training set shuffled with seed ``(seed, e)``, and a
run that starts at global step ``k`` skips exactly the ``k * global_batch``
records it already consumed. That is what makes a resumed ``--deterministic``
run end bit-identical to one that never stopped, without storing iterator
state in the checkpoint. The skip happens on records, before decoding, and
never reaches back further than the start of the current epoch.

Images are normalised after batching (one multiply per batch, not per
example); augmentation, when on, works on uint8 batches before that.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np
import tensorflow as tf

from tf1_train.data import augment as augmentlib
from tf1_train.data.source import TEST, TRAIN, Source

v1 = tf.compat.v1


def order_seed(seed, epoch) -> tf.Tensor:
    """The int64 [2] seed of one epoch's order."""
    return tf.stack([tf.cast(seed, tf.int64), tf.cast(epoch, tf.int64)])


def train_dataset(
    source: Source,
    global_batch: int,
    seed: int,
    start_step=0,
    num_shards: int = 1,
    shard_index: int = 0,
    augment: bool = False,
) -> tf.data.Dataset:
    """Endless batches of (float images, int32 labels) starting at a step.

    Args:
      source: where the records come from.
      global_batch: examples per step in this worker (batch_size x towers).
      seed: the data seed; epoch e is shuffled with (seed, e).
      start_step: the step to start at; may be a tensor (a placeholder fed
        when the iterator is initialised after a restore).
      num_shards, shard_index: this worker's share of the training set
        (distributed training: one shard per worker).
      augment: cifar10 crop-and-flip, seeded by (seed, example position).
    """
    n = source.shard_size(num_shards, shard_index)
    consumed = tf.cast(start_step, tf.int64) * global_batch
    first_epoch, offset = consumed // n, consumed % n

    def one_epoch(epoch):
        return source.records(TRAIN, order_seed(seed, epoch), num_shards, shard_index)

    records = tf.data.Dataset.range(first_epoch, np.iinfo(np.int64).max)
    records = records.flat_map(one_epoch).skip(offset)
    ds = source.batches(records, TRAIN, global_batch, drop_remainder=True)
    if augment:
        in_batch = tf.range(global_batch, dtype=tf.int64)

        def crop_flip(k, batch):
            images, labels = batch
            positions = consumed + k * global_batch + in_batch
            return augmentlib.crop_flip(images, positions, seed), labels

        ds = ds.enumerate().map(crop_flip, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    ds = ds.map(lambda x, y: (normalize(x, source.scale), y))
    return ds.prefetch(2)


def eval_dataset(source: Source, batch_size: int) -> tf.data.Dataset:
    """The test split once, in order, the last batch possibly short."""
    ds = source.batches(source.records(TEST), TEST, batch_size, drop_remainder=False)
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
