"""What every input source provides, and the in-memory source most use.

A source turns a split into a stream of *records* (whatever is cheapest to
shuffle and skip: an index for in-memory arrays, a serialized
``tf.train.Example`` for TFRecord files) and turns batches of records into
uint8 HWC images and int32 labels. ``pipeline.py`` does the rest the same way
for every source: epochs, seeded shuffling, exact resume, per-tower batches,
augmentation and normalisation.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Protocol, Tuple

import numpy as np
import tensorflow as tf

from tf1_train.errors import UserError

TRAIN = "train"
TEST = "test"


class Source(Protocol):
    """The protocol ``pipeline.py`` relies on (ArraySource, TFRecordSource,
    SyntheticSource satisfy it)."""

    name: str
    num_classes: int
    scale: float  # pixel value that maps to 1.0

    @property
    def image_shape(self) -> Tuple[int, int, int]: ...

    @property
    def num_train(self) -> int: ...

    @property
    def num_test(self) -> int: ...

    def shard_size(self, num_shards: int, shard_index: int) -> int:
        """Training examples one epoch of shard ``shard_index`` holds."""

    def records(
        self,
        split: str,
        order_seed: Optional[tf.Tensor] = None,
        num_shards: int = 1,
        shard_index: int = 0,
    ) -> tf.data.Dataset:
        """One epoch of ``split``'s records: stored order, or shuffled as a
        pure function of ``order_seed`` (int64 [2]: run seed, epoch)."""

    def batches(
        self, records: tf.data.Dataset, split: str, batch_size: int, drop_remainder: bool
    ) -> tf.data.Dataset:
        """Batches of records -> (uint8 images [B, H, W, C], int32 labels [B])."""

    def input_error(self, error: tf.errors.OpError) -> Optional[UserError]:
        """The user-facing error for a failed read, or None if not the data's fault."""


@dataclasses.dataclass(frozen=True, eq=False)
class ArraySource:
    """A dataset small enough to hold in host memory as numpy arrays."""

    name: str
    train_images: np.ndarray  # [N, H, W, C] uint8
    train_labels: np.ndarray  # [N] integer
    test_images: np.ndarray
    test_labels: np.ndarray
    num_classes: int
    scale: float = 255.0  # pixel value that maps to 1.0

    @property
    def image_shape(self) -> Tuple[int, int, int]:
        return tuple(int(d) for d in self.train_images.shape[1:])

    @property
    def num_train(self) -> int:
        return int(self.train_labels.shape[0])

    @property
    def num_test(self) -> int:
        return int(self.test_labels.shape[0])

    def shard_size(self, num_shards: int, shard_index: int) -> int:
        return len(range(shard_index, self.num_train, num_shards))

    def records(self, split, order_seed=None, num_shards=1, shard_index=0):
        """Example indices; shard i of N keeps indices i, i+N, i+2N, ..."""
        n = self.num_train if split == TRAIN else self.num_test
        indices = tf.range(shard_index, n, num_shards, dtype=tf.int64)
        if order_seed is not None:
            indices = tf.random.experimental.stateless_shuffle(indices, order_seed, alg="philox")
        return tf.data.Dataset.from_tensor_slices(indices)

    def batches(self, records, split, batch_size, drop_remainder):
        """Gathers whole batches: one op per batch, not one per example."""
        images, labels = self._host_arrays(split)
        return records.batch(batch_size, drop_remainder).map(
            lambda i: (tf.gather(images, i), tf.gather(labels, i))
        )

    def input_error(self, error):
        del error  # arrays were validated when loaded: a failure here is a bug
        return None

    def _host_arrays(self, split: str):
        """The split's arrays as tensors made by a py function at iterator
        initialisation. ``from_tensor_slices(ndarray)`` would embed them as
        constants: CIFAR-10 would put 180 MB into the GraphDef, into every
        checkpoint's .meta file and into TensorBoard's graph (the tf.data
        guide's "preloaded data" warning)."""
        if split == TRAIN:
            x, y = self.train_images, self.train_labels.astype(np.int32)
        else:
            x, y = self.test_images, self.test_labels.astype(np.int32)
        images, labels = tf.numpy_function(
            lambda: (x, y), [], [tf.uint8, tf.int32], stateful=True, name=f"{split}_arrays"
        )
        images.set_shape(x.shape)
        labels.set_shape(y.shape)
        return images, labels
