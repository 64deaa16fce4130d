"""What every input source provides, and the in-memory source most use.

A source gives uint8 HWC image batches and int32 labels: an endless training
stream of one worker's shard, in the order ``order.py`` defines (a pure
function of the seed and the position), and the test split once in stored
order. ``pipeline.py`` adds what is the same for every source: the start
position from the step, augmentation, prefetching.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Protocol, Tuple

import numpy as np
import tensorflow as tf

from tf1_train.data import order
from tf1_train.errors import UserError

TRAIN = "train"
TEST = "test"
GATHER_EXAMPLES = 1024  # ArraySource: training examples fetched per tf.data call


class Source(Protocol):
    """The protocol ``pipeline.py`` relies on (ArraySource, TFRecordSource and
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

    def train_batches(
        self, batch_size: int, seed: int, consumed: tf.Tensor, num_shards: int, shard_index: int
    ) -> tf.data.Dataset:
        """Endless full batches of the shard's training stream, starting
        after its first ``consumed`` examples (int64 tensor)."""

    def eval_batches(self, batch_size: int) -> tf.data.Dataset:
        """The test split once, in stored order; the last batch may be short."""

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

    def train_batches(self, batch_size, seed, consumed, num_shards=1, shard_index=0):
        """Random access: one vectorised permutation lookup and one gather
        serve several steps (about GATHER_EXAMPLES examples), so tf.data's
        per-call cost is shared by them and no per-example work remains.
        Shard i of N holds examples i, i+N, i+2N, ..."""
        n = self.shard_size(num_shards, shard_index)
        steps = max(1, GATHER_EXAMPLES // batch_size)
        images, labels = self._host_arrays(TRAIN)

        def some_steps(j):
            pos = order.positions(consumed, j, steps * batch_size)
            local = order.shuffled_indices(pos, n, seed)
            indices = tf.reshape(shard_index + num_shards * local, [steps, batch_size])
            return tf.gather(images, indices), tf.gather(labels, indices)

        return tf.data.Dataset.range(order.FOREVER).map(some_steps).unbatch()

    def eval_batches(self, batch_size):
        images, labels = self._host_arrays(TEST)
        ds = tf.data.Dataset.range(self.num_test).batch(batch_size)
        return ds.map(lambda i: (tf.gather(images, i), tf.gather(labels, i)))

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
