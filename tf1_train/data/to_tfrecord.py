"""Writes digits, MNIST or CIFAR-10 as TFRecord shards in the TF-slim layout.

    python -m tf1_train.data.to_tfrecord --dataset=mnist --data_dir=/data/mnist \\
        --output_dir=/data/mnist-tfrecord --train_shards=4

Writes ``train-00000-of-00004`` ... and ``validation-00000-of-00001`` (the
test split), each record a ``tf.train.Example`` with ``image/encoded`` (PNG
by default, lossless; or JPEG), ``image/format``, ``image/class/label``,
``image/height`` and ``image/width``, plus ``labels.txt`` (``<id>:<name>``),
which is what ``--dataset=tfrecord`` reads. Shards hold consecutive
examples, so the files in name order give the source's order. Pixels are
written as 8-bit values meaning 0..255: the digits (0..16) are rescaled,
rounded to the nearest integer; MNIST and CIFAR-10 are copied exactly.

A stand-alone tool with argparse: absl flags belong to tf1_train.main only.
It runs eagerly (it never leaves eager mode).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from typing import List, Optional, Sequence

if __name__ == "__main__":  # before TensorFlow loads: hide its C++ info chatter
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tf1_train import data  # noqa: E402
from tf1_train.config import DataConfig  # noqa: E402
from tf1_train.data import tfrecord, tfrecord_files  # noqa: E402
from tf1_train.data.source import ArraySource  # noqa: E402
from tf1_train.errors import UserError  # noqa: E402

CIFAR10_NAMES = (
    "airplane automobile bird cat deer dog frog horse ship truck".split()  # batches.meta.txt
)


def _example(image: np.ndarray, label: int, image_format: str) -> bytes:
    encode = tf.io.encode_png if image_format == "png" else tf.io.encode_jpeg
    encoded = encode(image).numpy()
    feature = {
        tfrecord_files.ENCODED: _bytes(encoded),
        tfrecord_files.FORMAT: _bytes(image_format.encode()),
        tfrecord_files.LABEL: _int(label),
        tfrecord_files.HEIGHT: _int(image.shape[0]),
        tfrecord_files.WIDTH: _int(image.shape[1]),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _bytes(value: bytes) -> tf.train.Feature:
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def _int(value: int) -> tf.train.Feature:
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(value)]))


def write_shards(
    prefix: str, images: np.ndarray, labels: np.ndarray, shards: int, image_format: str
) -> List[str]:
    """Writes ``<prefix>-0000i-of-0000n`` files of consecutive examples."""
    paths = []
    for i, chunk in enumerate(np.array_split(np.arange(len(labels)), shards)):
        path = f"{prefix}-{i:05d}-of-{shards:05d}"
        with tf.io.TFRecordWriter(path) as writer:
            for j in chunk:
                writer.write(_example(images[j], int(labels[j]), image_format))
        paths.append(path)
    return paths


def convert(
    source: ArraySource,
    output_dir: str,
    train_shards: int = 1,
    validation_shards: int = 1,
    image_format: str = "png",
) -> List[str]:
    """Writes the source's splits and labels.txt; returns the shard paths."""
    existing = [
        p
        for pattern in (tfrecord.TRAIN_PATTERN, tfrecord.EVAL_PATTERN)
        for p in glob.glob(os.path.join(output_dir, pattern))
    ]
    if existing:
        raise UserError(
            f"--output_dir={output_dir}: already holds {os.path.basename(existing[0])}; "
            "use an empty directory (old shards would be read with the new ones)"
        )
    os.makedirs(output_dir, exist_ok=True)
    names = CIFAR10_NAMES if source.name == "cifar10" else range(source.num_classes)
    with open(os.path.join(output_dir, tfrecord_files.LABELS_FILE), "w") as f:
        f.writelines(f"{i}:{name}\n" for i, name in enumerate(names))
    train, test = os.path.join(output_dir, "train"), os.path.join(output_dir, "validation")
    return write_shards(
        train,
        to_8bit(source.train_images, source.scale),
        source.train_labels,
        train_shards,
        image_format,
    ) + write_shards(
        test,
        to_8bit(source.test_images, source.scale),
        source.test_labels,
        validation_shards,
        image_format,
    )


def to_8bit(images: np.ndarray, scale: float) -> np.ndarray:
    """Pixels rescaled so that ``scale`` becomes 255 (unchanged if it is)."""
    if scale == 255:
        return images
    return np.round(images.astype(np.float64) * (255.0 / scale)).astype(np.uint8)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tf1_train.data.to_tfrecord", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--dataset", choices=("digits", "mnist", "cifar10"), default="digits")
    parser.add_argument("--data_dir", help="the dataset's files (not needed for digits)")
    parser.add_argument("--output_dir", required=True, help="an empty or new directory")
    parser.add_argument("--train_shards", type=int, default=1)
    parser.add_argument("--validation_shards", type=int, default=1)
    parser.add_argument("--image_format", choices=("png", "jpeg"), default="png")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = parse_args(argv)
    tf.get_logger().setLevel("ERROR")
    try:
        for flag in ("train_shards", "validation_shards"):
            if getattr(args, flag) < 1:
                raise UserError(f"--{flag}: got {getattr(args, flag)}; must be >= 1")
        cfg = DataConfig(dataset=args.dataset, data_dir=args.data_dir)
        cfg.validate()
        source = data.load_source(cfg)
        paths = convert(
            source, args.output_dir, args.train_shards, args.validation_shards, args.image_format
        )
    except UserError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        sys.exit(2)
    print(f"wrote {len(paths)} shards of {source.num_train} + {source.num_test} examples")
    print(f"train with: --dataset=tfrecord --data_dir={args.output_dir}")


if __name__ == "__main__":
    main()
