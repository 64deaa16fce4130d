"""Training order as a pure function of (seed, position in the stream).

Epoch ``e`` of a shard of ``n`` examples is that shard shuffled with the
seed ``(seed, e)``; position ``p`` of the endless training stream is example
``p % n`` of epoch ``p // n``. A run that starts at global step ``k`` starts
at position ``k * global_batch`` and reads exactly what an uninterrupted run
would have read from there, without storing iterator state in checkpoints:
that is what lets a resumed ``--deterministic`` run end bit-identical.

Two ways to get there, one per kind of source:

* random access (in-memory arrays): ``shuffled_indices`` maps whole batches
  of positions to example indices with a stateless pseudorandom permutation,
  one vectorised op per batch and no per-example tf.data work;
* streaming (files): ``stream`` chains epochs of records from the epoch of
  the start position and skips the records of that epoch already consumed
  (read, not decoded).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tensorflow as tf

FOREVER = np.iinfo(np.int64).max


def order_seed(seed, epoch) -> tf.Tensor:
    """The int64 [2] seed of one epoch's order."""
    return tf.stack([tf.cast(seed, tf.int64), tf.cast(epoch, tf.int64)])


def positions(consumed: tf.Tensor, batch: tf.Tensor, batch_size: int) -> tf.Tensor:
    """Stream positions of the examples in batch ``batch`` after ``consumed``."""
    first = consumed + tf.cast(batch, tf.int64) * batch_size
    return first + tf.range(batch_size, dtype=tf.int64)


def shuffled_indices(pos: tf.Tensor, n: int, seed) -> tf.Tensor:
    """Example indices (in 0..n-1) at stream positions ``pos`` [B].

    ``RandomIndexShuffle`` is a keyed bijection of 0..n-1 (a stateless
    pseudorandom permutation), evaluated per position with the key
    ``(seed, epoch, 0)``. The raw op is used because the Python wrapper
    (``tf.random.experimental.index_shuffle``) mis-pads batched seeds.
    """
    epoch, offset = pos // n, pos % n
    keys = tf.stack(
        [tf.fill(tf.shape(pos), tf.cast(seed, tf.int64)), epoch, tf.zeros_like(pos)], axis=1
    )
    return tf.raw_ops.RandomIndexShuffle(
        index=offset, seed=keys, max_index=tf.constant(n - 1, tf.int64), rounds=4
    )


def stream(
    consumed: tf.Tensor, n: int, seed, one_epoch: Callable[[tf.Tensor], tf.data.Dataset]
) -> tf.data.Dataset:
    """Endless records from position ``consumed`` on; ``one_epoch(order_seed)``
    must give the ``n`` records of an epoch in that seed's order."""
    first_epoch, offset = consumed // n, consumed % n
    epochs = tf.data.Dataset.range(first_epoch, FOREVER)
    return epochs.flat_map(lambda e: one_epoch(order_seed(seed, e))).skip(offset)
