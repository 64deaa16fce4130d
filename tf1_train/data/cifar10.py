"""CIFAR-10 from the standard binary batches in --data_dir.

``data_batch_1.bin`` ... ``data_batch_5.bin`` (training) and
``test_batch.bin``, as in cifar-10-binary.tar.gz; the tarball's
``cifar-10-batches-bin/`` folder inside --data_dir is found too. Each record
is 1 label byte then 3,072 pixel bytes: the 1,024 red values, then green,
then blue (channels first, rows of 32). Records become HWC images.
"""

from __future__ import annotations

import os

import numpy as np

from tf1_train.data import files
from tf1_train.data.source import ArraySource

TRAIN_FILES = tuple(f"data_batch_{i}.bin" for i in range(1, 6))
TEST_FILE = "test_batch.bin"
FILES = TRAIN_FILES + (TEST_FILE,)
SUBDIR = "cifar-10-batches-bin"
HEIGHT = WIDTH = 32
CHANNELS = 3
RECORD_BYTES = 1 + HEIGHT * WIDTH * CHANNELS
# A batch file holds 10,000 records; none may hold more than the whole
# dataset's 60,000, which bounds what a damaged .gz can inflate to.
MAX_RECORDS = 60_000
NUM_CLASSES = 10


def load(data_dir: str) -> ArraySource:
    """Reads and checks the six files into HWC uint8 arrays."""
    files.check_dir(data_dir, "cifar10")
    if not os.path.isfile(os.path.join(data_dir, TRAIN_FILES[0])):
        nested = os.path.join(data_dir, SUBDIR)
        if os.path.isdir(nested):
            data_dir = nested
    train = [read_batch(_find(data_dir, name)) for name in TRAIN_FILES]
    test_images, test_labels = read_batch(_find(data_dir, TEST_FILE))
    train_images = np.concatenate([images for images, _ in train])
    train_labels = np.concatenate([labels for _, labels in train])
    return ArraySource("cifar10", train_images, train_labels, test_images, test_labels, NUM_CLASSES)


def _find(data_dir: str, name: str) -> str:
    return files.find_file(data_dir, name, FILES, "cifar10")


def read_batch(path: str):
    """(images [N, 32, 32, 3] uint8, labels [N] uint8) of one batch file."""
    data = files.read_bytes(
        path, MAX_RECORDS * RECORD_BYTES, f"a CIFAR-10 batch ({MAX_RECORDS:,} records)"
    )
    if not data or len(data) % RECORD_BYTES:
        raise files.file_error(
            path,
            f"{len(data)} bytes is not a whole number of {RECORD_BYTES}-byte records "
            "(1 label + 32x32x3 pixels); the file is truncated or not a CIFAR-10 batch",
        )
    records = np.frombuffer(data, np.uint8).reshape(-1, RECORD_BYTES)
    labels = records[:, 0].copy()
    files.check_labels(path, labels, NUM_CLASSES, "CIFAR-10")
    chw = records[:, 1:].reshape(-1, CHANNELS, HEIGHT, WIDTH)
    return np.ascontiguousarray(chw.transpose(0, 2, 3, 1)), labels
