"""--use_synthetic_data: random inputs of the dataset's shape, made on each tower's device.

Training input is tf_cnn_benchmarks' way: each tower gets a non-trainable
local variable (collection LOCAL_VARIABLES, so never checkpointed) holding
one batch of random images and labels, created on the tower's device when
the session initialises local variables and read by every step. No
host-to-device copy, no per-step generation: what remains is the model's own
speed, the ceiling any real input pipeline is measured against.

Evaluation reads a small random "test split" built by a host pipeline
(``SyntheticSource``), so the eval path, batch-norm moving statistics
included, runs as with real data; its accuracy is chance by construction.

No file is read, except that --dataset=tfrecord with a --data_dir takes the
image shape and class count from those files (``SPECS`` has the others).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, NamedTuple, Sequence, Tuple

import tensorflow as tf

from tf1_train.data import order

v1 = tf.compat.v1

EVAL_EXAMPLES = 500


class Spec(NamedTuple):
    image_shape: Tuple[int, int, int]
    num_classes: int
    num_train: int


# tfrecord without files: ImageNet as TF-slim's converter writes it.
SPECS: Dict[str, Spec] = {
    "digits": Spec((8, 8, 1), 10, 1437),
    "mnist": Spec((28, 28, 1), 10, 60000),
    "cifar10": Spec((32, 32, 3), 10, 50000),
    "tfrecord": Spec((224, 224, 3), 1001, 1281167),
}


@dataclasses.dataclass(frozen=True)
class SyntheticSource:
    """A Source of random examples; each batch is a pure function of (seed, its first position)."""

    name: str
    image_shape: Tuple[int, int, int]
    num_classes: int
    num_train: int
    num_test: int = EVAL_EXAMPLES
    scale: float = 255.0
    seed: int = 0

    def shard_size(self, num_shards: int, shard_index: int) -> int:
        return len(range(shard_index, self.num_train, num_shards))

    def train_batches(self, batch_size, seed, consumed, num_shards=1, shard_index=0):
        del seed, num_shards, shard_index  # random anyway
        batches = tf.data.Dataset.range(order.FOREVER)
        return batches.map(lambda k: self._examples(order.positions(consumed, k, batch_size)))

    def eval_batches(self, batch_size):
        return tf.data.Dataset.range(self.num_test).batch(batch_size).map(self._examples)

    def _examples(self, indices):
        """Random examples, the batch seeded by (seed, its first index)."""
        key = tf.stack([tf.constant(self.seed, tf.int64), indices[0]])
        shape = tf.concat([tf.shape(indices), self.image_shape], 0)
        images = tf.random.stateless_uniform(shape, key, maxval=256, dtype=tf.int32)
        labels = tf.random.stateless_uniform(
            tf.shape(indices), key[::-1], maxval=self.num_classes, dtype=tf.int32
        )
        return tf.cast(images, tf.uint8), labels

    def input_error(self, error):
        del error
        return None


def source(dataset: str, seed: int, spec: Spec = None) -> SyntheticSource:
    """The synthetic stand-in for ``dataset`` (``spec`` overrides the table)."""
    spec = spec or SPECS[dataset]
    return SyntheticSource(dataset, spec.image_shape, spec.num_classes, spec.num_train, seed=seed)


def tower_inputs(
    src: SyntheticSource,
    batch_size: int,
    tower_devices: Sequence[str],
    seed: int,
    transform=None,
) -> List[Tuple[tf.Tensor, tf.Tensor]]:
    """(images, labels) per tower, each read from a local variable on its device.

    Pixels are whole numbers 0..255 held as float32 (float variables have
    kernels on every device; uint8 ones may not on GPUs). The tower
    normalises them as it does real input, so the two differ only by the
    input pipeline. ``transform(images, labels, positions)``, when given,
    turns the raw batch into what the towers read (the user's --preprocess:
    its shape and dtype are then the variable's).
    """
    out = []
    for i, device in enumerate(tower_devices):
        with tf.device(device), tf.name_scope(f"synthetic_{i}"):
            shape = [batch_size, *src.image_shape]
            pixels = tf.random.stateless_uniform(shape, [seed, 2 * i], maxval=256, dtype=tf.int32)
            images = tf.cast(pixels, tf.float32)
            labels = tf.random.stateless_uniform(
                [batch_size], [seed, 2 * i + 1], maxval=src.num_classes, dtype=tf.int32
            )
            if transform is not None:
                positions = tf.range(i * batch_size, (i + 1) * batch_size, dtype=tf.int64)
                images, labels = transform(images, labels, positions)
            out.append((_local(images, "images"), _local(labels, "labels")))
    return out


def _local(initial: tf.Tensor, name: str) -> tf.Tensor:
    var = v1.Variable(
        initial,
        trainable=False,
        collections=[v1.GraphKeys.LOCAL_VARIABLES],
        name=name,
    )
    return var.read_value()
