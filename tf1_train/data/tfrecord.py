"""TFRecord files of ``tf.train.Example``s, the TF-slim/ImageNet layout.

--data_dir holds ``train-*`` and ``validation-*`` files (e.g.
``train-00000-of-00004``) whose records carry ``image/encoded`` (PNG or JPEG
bytes) and ``image/class/label`` (int64), as TF-slim's converters,
``build_imagenet_data.py`` and ``python -m tf1_train.data.to_tfrecord``
write them. The number of classes comes from ``labels.txt`` (``<id>:<name>``
lines, as TF-slim writes) or, without it, from the largest label found.
Every image must have the size of the first training image.

A streaming source: records are read, shuffled and decoded by tf.data, never
held in memory. Training order is still a pure function of (seed, epoch):
the file order is shuffled with it, files are interleaved in a fixed
pattern, and a seeded shuffle buffer mixes their records. Exact resume works
as for in-memory data (the record counts are known), at the cost of reading
(not decoding) the records of the current epoch that were already consumed.
Worker shards are whole files, so a dataset needs at least as many train
files as workers (tf.data's FILE auto-shard policy has the same rule).
"""

from __future__ import annotations

import dataclasses
import glob
import os
from typing import Optional, Tuple

import tensorflow as tf

from tf1_train.data import files, order
from tf1_train.data import tfrecord_files as tff
from tf1_train.errors import UserError

TRAIN_PATTERN = "train-*"
EVAL_PATTERN = "validation-*"
CYCLE_LENGTH = 4  # files read at once
MAX_SHUFFLE = 10_000  # records in the shuffle buffer, at most...
SHUFFLE_BYTES = 256 << 20  # ...and about this many bytes


@dataclasses.dataclass(frozen=True, eq=False)
class TFRecordSource:
    """Record counts and image spec of a directory of TFRecord files."""

    data_dir: str
    train_files: Tuple[str, ...]
    train_counts: Tuple[int, ...]
    test_files: Tuple[str, ...]
    test_counts: Tuple[int, ...]
    image_shape: Tuple[int, int, int]
    num_classes: int
    name: str = "tfrecord"
    scale: float = 255.0

    @property
    def num_train(self) -> int:
        return sum(self.train_counts)

    @property
    def num_test(self) -> int:
        return sum(self.test_counts)

    def shard_files(self, num_shards: int, shard_index: int):
        """(files, counts) of one worker's shard: every num_shards-th file."""
        if num_shards > len(self.train_files):
            raise UserError(
                f"--data_dir={self.data_dir}: {len(self.train_files)} train-* file(s) cannot "
                f"be split over {num_shards} workers; write at least {num_shards} train shards"
            )
        pick = slice(shard_index, None, num_shards)
        return self.train_files[pick], self.train_counts[pick]

    def shard_size(self, num_shards: int, shard_index: int) -> int:
        return sum(self.shard_files(num_shards, shard_index)[1])

    def train_batches(self, batch_size, seed, consumed, num_shards=1, shard_index=0):
        paths, counts = self.shard_files(num_shards, shard_index)
        buffer = self._buffer(sum(counts))

        def one_epoch(epoch_seed):
            scalar = epoch_seed[0] * 1_000_003 + epoch_seed[1]
            files = tf.data.Dataset.from_tensor_slices(list(paths))
            files = files.shuffle(len(paths), seed=scalar, reshuffle_each_iteration=False)
            records = files.interleave(
                tf.data.TFRecordDataset,
                cycle_length=min(CYCLE_LENGTH, len(paths)),
                block_length=1,
                num_parallel_calls=tf.data.AUTOTUNE,
                deterministic=True,
            )
            return records.shuffle(buffer, seed=scalar, reshuffle_each_iteration=False)

        records = order.stream(consumed, sum(counts), seed, one_epoch)
        return self._decoded(records).batch(batch_size, drop_remainder=True)

    def eval_batches(self, batch_size):
        files = tf.data.Dataset.from_tensor_slices(list(self.test_files))
        return self._decoded(files.flat_map(tf.data.TFRecordDataset)).batch(batch_size)

    def _buffer(self, count: int) -> int:
        mean_bytes = sum(os.path.getsize(p) for p in self.train_files) / max(self.num_train, 1)
        return max(1, min(count, MAX_SHUFFLE, int(SHUFFLE_BYTES // max(mean_bytes, 1))))

    def _decoded(self, records: tf.data.Dataset) -> tf.data.Dataset:
        return records.map(self._decode, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)

    def _decode(self, serialized):
        features = tf.io.parse_single_example(
            serialized,
            {
                tff.ENCODED: tf.io.FixedLenFeature([], tf.string),
                tff.LABEL: tf.io.FixedLenFeature([], tf.int64),
            },
        )
        image = tf.io.decode_image(
            features[tff.ENCODED], channels=self.image_shape[2], expand_animations=False
        )
        label = features[tff.LABEL]
        checks = [
            tf.debugging.assert_equal(
                tf.shape(image), self.image_shape, message="image size differs from the first"
            ),
            tf.debugging.assert_greater_equal(label, tf.constant(0, tf.int64)),
            tf.debugging.assert_less(label, tf.constant(self.num_classes, tf.int64)),
        ]
        with tf.control_dependencies(checks):
            image = tf.ensure_shape(tf.identity(image), self.image_shape)
            return image, tf.cast(label, tf.int32)

    def input_error(self, error: tf.errors.OpError) -> Optional[UserError]:
        """Names the bad file after a failed read, by re-checking the files.

        A DataLossError is always the files' fault. Other errors are only if
        the check finds a bad record, or if they were raised inside the input
        pipeline (session errors carry no op for nodes inside tf.data
        functions; the message names the iterator's node).
        """
        try:
            tff.find_problem(self.train_files + self.test_files, self.image_shape, self.num_classes)
        except UserError as found:
            return found
        message = error.message.strip()
        if not isinstance(error, tf.errors.DataLossError) and "IteratorGetNext" not in message:
            return None
        line = message.splitlines()[0] if message else type(error).__name__
        return UserError(f"--data_dir={self.data_dir}: reading the TFRecord files failed: {line}")


def load(data_dir: str) -> TFRecordSource:
    """Finds the files, counts their records and reads the image spec."""
    files.check_dir(data_dir, "tfrecord")
    train, test = _glob(data_dir, TRAIN_PATTERN), _glob(data_dir, EVAL_PATTERN)
    train_counts = tuple(tff.count_records(p) for p in train)
    test_counts = tuple(tff.count_records(p) for p in test)
    if not sum(train_counts):
        raise UserError(f"--data_dir={data_dir}: the train-* files hold no records")
    first = next(p for p, c in zip(train, train_counts) if c)
    shape = tff.first_example_shape(first)
    num_classes = tff.labels_txt_classes(data_dir)
    if num_classes is None:
        num_classes = tff.max_label(train) + 1
    return TFRecordSource(data_dir, train, train_counts, test, test_counts, shape, num_classes)


def _glob(data_dir: str, pattern: str) -> Tuple[str, ...]:
    paths = tuple(sorted(glob.glob(os.path.join(data_dir, pattern))))
    for path in paths:
        files.check_regular(path)
    if not paths:
        raise UserError(
            f"--data_dir={data_dir}: no {pattern} files; --dataset=tfrecord reads "
            f"{TRAIN_PATTERN} and {EVAL_PATTERN} TFRecord files "
            "(python -m tf1_train.data.to_tfrecord writes them)"
        )
    return paths
