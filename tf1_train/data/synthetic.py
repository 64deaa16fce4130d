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

from tf1_train.data.source import TRAIN

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
    """A Source of random examples; example i is a pure function of (seed, i)."""

    name: str
    image_shape: Tuple[int, int, int]
    num_classes: int
    num_train: int
    num_test: int = EVAL_EXAMPLES
    scale: float = 255.0
    seed: int = 0

    def shard_size(self, num_shards: int, shard_index: int) -> int:
        return len(range(shard_index, self.num_train, num_shards))

    def records(self, split, order_seed=None, num_shards=1, shard_index=0):
        del order_seed  # random anyway
        n = self.num_train if split == TRAIN else self.num_test
        return tf.data.Dataset.range(shard_index, n, num_shards)

    def batches(self, records, split, batch_size, drop_remainder):
        def make(indices):
            seed = tf.stack([tf.constant(self.seed, tf.int64), indices[0]])
            shape = tf.concat([tf.shape(indices), self.image_shape], 0)
            images = tf.random.stateless_uniform(shape, seed, maxval=256, dtype=tf.int32)
            labels = tf.random.stateless_uniform(
                tf.shape(indices), seed[::-1], maxval=self.num_classes, dtype=tf.int32
            )
            return tf.cast(images, tf.uint8), labels

        return records.batch(batch_size, drop_remainder).map(make)

    def input_error(self, error):
        del error
        return None


def source(dataset: str, seed: int, spec: Spec = None) -> SyntheticSource:
    """The synthetic stand-in for ``dataset`` (``spec`` overrides the table)."""
    spec = spec or SPECS[dataset]
    return SyntheticSource(dataset, spec.image_shape, spec.num_classes, spec.num_train, seed=seed)


def tower_inputs(
    src: SyntheticSource, batch_size: int, tower_devices: Sequence[str], seed: int
) -> List[Tuple[tf.Tensor, tf.Tensor]]:
    """(images, labels) per tower, each read from a local variable on its device.

    Images are floats in [0, 1), already normalised like real input.
    """
    out = []
    for i, device in enumerate(tower_devices):
        with tf.device(device), tf.name_scope(f"synthetic_{i}"):
            images = tf.random.stateless_uniform([batch_size, *src.image_shape], [seed, 2 * i])
            labels = tf.random.stateless_uniform(
                [batch_size], [seed, 2 * i + 1], maxval=src.num_classes, dtype=tf.int32
            )
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
