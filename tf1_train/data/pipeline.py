"""tf.data pipelines: exact-resume training batches, eval batches, tower split.

The order of the training stream is a pure function of (seed, position)
(``order.py``); a run that starts at global step ``k`` starts at position
``k * global_batch``, so a resumed ``--deterministic`` run reads exactly what
an uninterrupted one would have.

Batches leave the pipeline as uint8: each tower normalises its slice on its
own device (``normalize``, called by graph.py), so a GPU receives a quarter
of the bytes float32 would need and the host does no per-batch float work.
Augmentation, when on, works on the uint8 batches.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import tensorflow as tf

from tf1_train.data import augment as augmentlib
from tf1_train.data import order, user_input
from tf1_train.data.source import Source

# Test-set batch size of every route (TF1 eval replica, TF2 loop, Keras evaluate):
# accuracy does not depend on it, memory does.
EVAL_BATCH = 500


def train_dataset(
    source: Source,
    global_batch: int,
    seed: int,
    start_step=0,
    num_shards: int = 1,
    shard_index: int = 0,
    augment: bool = False,
    preprocess: Optional[user_input.Preprocess] = None,
) -> tf.data.Dataset:
    """Endless batches of (uint8 images, int32 labels) starting at a step
    (float images, as the user's function returns them, with ``preprocess``).

    Args:
      source: where the examples come from.
      global_batch: examples per step in this worker (batch_size x towers).
      seed: the data seed; epoch e is shuffled with (seed, e).
      start_step: the step to start at; may be a tensor (a placeholder fed
        when the iterator is initialised after a restore).
      num_shards, shard_index: this worker's share of the training set
        (distributed training: one shard per worker).
      augment: cifar10 crop-and-flip, seeded by (seed, example position).
      preprocess: the user's per-example function (user_input.py), seeded
        by (seed, example position) too.
    """
    consumed = tf.cast(start_step, tf.int64) * global_batch
    ds = source.train_batches(global_batch, seed, consumed, num_shards, shard_index)
    if preprocess is not None:

        def user_fn(k, batch):
            pos = order.positions(consumed, k, global_batch)
            return user_input.apply(preprocess, *batch, pos, source.scale, training=True)

        ds = ds.enumerate().map(user_fn, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    elif augment:

        def crop_flip(k, batch):
            images, labels = batch
            pos = order.positions(consumed, k, global_batch)
            return augmentlib.crop_flip(images, pos, seed), labels

        ds = ds.enumerate().map(crop_flip, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    return ds.prefetch(2)


def eval_dataset(
    source: Source, batch_size: int, preprocess: Optional[user_input.Preprocess] = None
) -> tf.data.Dataset:
    """The test split once, in order, the last batch possibly short (uint8,
    or the user's function applied with is_training False)."""
    ds = source.eval_batches(batch_size)
    if preprocess is not None:

        def user_fn(k, batch):
            images, labels = batch
            pos = k * batch_size + tf.range(tf.size(labels, out_type=tf.int64))
            return user_input.apply(preprocess, images, labels, pos, source.scale, training=False)

        ds = ds.enumerate().map(user_fn, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    return ds.prefetch(2)


def normalize(images: tf.Tensor, scale: float, preprocessed: bool = False) -> tf.Tensor:
    """Pixels -> float32 in [0, 1]: ``scale`` (the source's brightest value)
    becomes 1. Images the user's --preprocess made go to the model as they are."""
    if preprocessed:
        return images
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
