"""Tiny dataset files in each standard format, written byte by byte by the tests.

The writers follow the format specifications, not tf1_train's readers, so a
reader that misreads a format fails the tests instead of agreeing with
itself.
"""

from __future__ import annotations

import gzip
import os
import struct
from typing import Dict, Tuple

import numpy as np
import tensorflow as tf

Arrays = Dict[str, np.ndarray]


def write_idx(path: str, array: np.ndarray, compress: bool = False) -> str:
    """IDX: magic 0x0000080<ndim>, big-endian uint32 sizes, then the bytes."""
    header = struct.pack(f">I{array.ndim}I", 0x800 | array.ndim, *array.shape)
    path = path + ".gz" if compress else path
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())
    return path


def random_split(rng, n: int, shape: Tuple[int, ...]) -> Tuple[np.ndarray, np.ndarray]:
    return rng.randint(0, 256, (n, *shape)).astype(np.uint8), rng.randint(0, 10, n)


def write_mnist(directory, compress=False, n_train=24, n_test=10, seed=0) -> Arrays:
    """The four MNIST files with random 28x28 images; returns what was written."""
    rng = np.random.RandomState(seed)
    out = {}
    for prefix, split, n in (("train", "train", n_train), ("t10k", "test", n_test)):
        images, labels = random_split(rng, n, (28, 28))
        write_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte"), images, compress)
        write_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte"), labels, compress)
        out[f"{split}_images"], out[f"{split}_labels"] = images[..., None], labels
    return out


def write_digits_as_mnist(directory) -> None:
    """tf1_train's digits (8x8, 0-16) as the four MNIST .gz files: 28x28 images
    of 0-240, each pixel 3x3, centred, so MNIST programs learn something real."""
    digits = np.load(os.path.join(os.path.dirname(__file__), "..", "tf1_train", "data",
                                  "digits.npz"))  # fmt: skip
    for split, prefix in (("train", "train"), ("test", "t10k")):
        images = np.kron(digits[f"{split}_images"][..., 0] * 15, np.ones((3, 3), np.uint8))
        write_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte"),
                  np.pad(images, ((0, 0), (2, 2), (2, 2))), compress=True)  # fmt: skip
        write_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte"),
                  digits[f"{split}_labels"], compress=True)  # fmt: skip


def write_cifar10(directory, per_batch=4, n_test=6, seed=0) -> Arrays:
    """data_batch_1..5.bin and test_batch.bin: label byte + R, G, B planes."""
    rng = np.random.RandomState(seed)
    chunks = {"train": [], "test": []}
    names = [(f"data_batch_{i}.bin", "train", per_batch) for i in range(1, 6)]
    for name, split, n in names + [("test_batch.bin", "test", n_test)]:
        planes, labels = random_split(rng, n, (3, 32, 32))  # channels first
        with open(os.path.join(directory, name), "wb") as f:
            for plane, label in zip(planes, labels):
                f.write(bytes([label]) + plane.tobytes())
        chunks[split].append((planes.transpose(0, 2, 3, 1), labels))
    out = {}
    for split, parts in chunks.items():
        out[f"{split}_images"] = np.concatenate([p[0] for p in parts])
        out[f"{split}_labels"] = np.concatenate([p[1] for p in parts])
    return out


def example(encoded: bytes, label: int) -> bytes:
    feature = {
        "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[encoded])),
        "image/class/label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def write_tfrecord(
    directory, image_format="png", shape=(6, 5, 3), train_files=2, per_file=5, n_test=4, seed=0
) -> Arrays:
    """train-0000i-of-0000n and validation-00000-of-00001 of random images
    encoded eagerly with tf.io.encode_png / encode_jpeg."""
    rng = np.random.RandomState(seed)
    encode = tf.io.encode_png if image_format == "png" else tf.io.encode_jpeg
    out = {}
    layout = [("train", train_files, per_file), ("validation", 1, n_test)]
    for prefix, files, n in layout:
        images, labels = random_split(rng, files * n, shape)
        for i in range(files):
            path = os.path.join(directory, f"{prefix}-{i:05d}-of-{files:05d}")
            with tf.io.TFRecordWriter(path) as writer:
                for j in range(i * n, (i + 1) * n):
                    writer.write(example(encode(images[j]).numpy(), int(labels[j])))
        split = "train" if prefix == "train" else "test"
        out[f"{split}_images"], out[f"{split}_labels"] = images, labels
    return out
