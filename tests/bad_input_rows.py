"""The bad-input table's row type and its data-file rows (missing, empty,
unreadable, truncated or corrupt files of every format), for
tests/test_bad_input.py, which runs every row through the command line."""

from __future__ import annotations

import gzip
import os
import struct
from typing import Callable, List, NamedTuple, Optional

from tests import data_files


class Bad(NamedTuple):
    id: str
    args: List[str]
    names: str  # the flag or file the error line must name
    valid: str  # the part that says what would be valid
    setup: Optional[Callable] = None  # (tmp_path, run_dir) -> None, before the snapshot
    module: str = "tf1_train.main"
    # Found by tf.data during training: the train_dir copy is one trained on
    # the same TFRecord files (so its checkpoint restores), and the failed
    # run may add an events file to it (nothing else).
    mid_run: bool = False
    env: Optional[dict] = None  # extra environment (TF_CONFIG)


def _write(relpath: str, text: str = "x"):
    def setup(tmp, run):
        del run
        path = tmp / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    return setup


def _data(kind: str, damage=None):
    """Setup: dataset files of ``kind`` in {tmp}/data, then ``damage(dir)``."""

    def setup(tmp, run):
        del run
        d = tmp / "data"
        d.mkdir()
        {"mnist": data_files.write_mnist, "cifar10": data_files.write_cifar10}.get(
            kind, data_files.write_tfrecord
        )(d)
        if kind == "tfrecord":
            (d / "labels.txt").write_text("".join(f"{i}:c{i}\n" for i in range(10)))
        if damage:
            damage(d)

    return setup


def _edit(name: str, edit):
    def damage(d):
        path = d / name
        path.write_bytes(edit(path.read_bytes()))

    return damage


def _replace_by(name: str, make):
    def damage(d):
        os.remove(d / name)
        make(d / name)

    return damage


def _truncated_gz(d):
    path = d / "train-images-idx3-ubyte"
    (d / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(path.read_bytes()[:-100]))
    os.remove(path)


def _flip_byte(at: int, value=None):
    def edit(raw: bytes) -> bytes:
        raw = bytearray(raw)
        raw[at] = raw[at] ^ 0xFF if value is None else value
        return bytes(raw)

    return edit


def _odd_size_image(d):
    """A valid record whose image is larger: tf.data's size check fails in
    training, the re-check names the file."""
    big = d / "bigger"
    big.mkdir()
    data_files.write_tfrecord(big, shape=(7, 5, 3), train_files=1, per_file=1)
    os.rename(big / "train-00000-of-00001", d / "train-00002-of-00003")


def _mkdir(path):
    path.mkdir()


def _inflating_batch(d):
    """data_batch_1.bin.gz whose zeros inflate to one record more than the
    60,000 a batch may hold (805 KB on disk)."""
    os.remove(d / "data_batch_1.bin")
    size, chunk = 60_001 * 3073, bytes(1 << 20)
    with gzip.open(d / "data_batch_1.bin.gz", "wb", compresslevel=1) as f:
        for start in range(0, size, len(chunk)):
            f.write(chunk[: size - start])


def _idx_dims(*dims):
    """An IDX header edit: the images' dimensions replaced by ``dims``."""
    return lambda raw: raw[:4] + struct.pack(f">{len(dims)}I", *dims) + raw[4 + 4 * len(dims) :]


MNIST = ["--dataset=mnist", "--data_dir={tmp}/data"]
CIFAR = ["--dataset=cifar10", "--data_dir={tmp}/data"]
TFRECORD = ["--dataset=tfrecord", "--data_dir={tmp}/data"]
IMAGES = "{tmp}/data/train-images-idx3-ubyte"

DATA = [
    Bad("data_dir missing", MNIST, "--data_dir={tmp}/data", "reads its files from it"),
    Bad("data_dir is a file", CIFAR, "--data_dir", "reads its files", _write("data")),
    Bad(
        "data_dir is a FIFO",
        MNIST,
        "--data_dir",
        "not a directory",
        lambda t, r: os.mkfifo(t / "data"),
    ),
    Bad("data_dir empty", MNIST, IMAGES, "--dataset=mnist needs", lambda t, r: _mkdir(t / "data")),
    Bad("cifar10 files as mnist", MNIST, IMAGES, "--dataset=mnist needs", _data("cifar10")),
    Bad(
        "mnist files as tfrecord",
        TFRECORD,
        "--data_dir",
        "reads train-* and validation-* TFRecord files",
        _data("mnist"),
    ),
    Bad(
        "mnist file missing",
        MNIST,
        "{tmp}/data/t10k-labels-idx1-ubyte",
        "not found",
        _data("mnist", lambda d: os.remove(d / "t10k-labels-idx1-ubyte")),
    ),
    Bad(
        "mnist file is a FIFO",
        MNIST,
        IMAGES,
        "not a regular file",
        _data("mnist", _replace_by("train-images-idx3-ubyte", os.mkfifo)),
    ),
    Bad(
        "mnist truncated .gz",
        MNIST,
        IMAGES + ".gz",
        "truncated",
        _data("mnist", _truncated_gz),
    ),
    Bad(
        "mnist bad magic",
        MNIST,
        "{tmp}/data/t10k-labels-idx1-ubyte",
        "not an IDX labels (idx1) file",
        _data("mnist", _edit("t10k-labels-idx1-ubyte", _flip_byte(0))),
    ),
    Bad(
        "cifar10 short batch",
        CIFAR,
        "{tmp}/data/data_batch_3.bin",
        "not a whole number of 3073-byte records",
        _data("cifar10", _edit("data_batch_3.bin", lambda raw: raw[:-1])),
    ),
    Bad(
        "cifar10 label 200",
        CIFAR,
        "{tmp}/data/test_batch.bin",
        "CIFAR-10 labels are 0..9",
        _data("cifar10", _edit("test_batch.bin", _flip_byte(0, 200))),
    ),
    Bad(
        "cifar10 file is a directory",
        CIFAR,
        "{tmp}/data/data_batch_2.bin",
        "not a regular file",
        _data("cifar10", _replace_by("data_batch_2.bin", _mkdir)),
    ),
    Bad(
        "tfrecord truncated",
        TFRECORD,
        "{tmp}/data/train-00001-of-00002",
        "truncated",
        _data("tfrecord", _edit("train-00001-of-00002", lambda raw: raw[:-7])),
    ),
    Bad(
        "tfrecord not a tfrecord",
        TFRECORD,
        "{tmp}/data/train-00000-of-00002",
        "not a TFRecord file",
        _data("tfrecord", _edit("train-00000-of-00002", lambda raw: b"garbage " * 8)),
    ),
    Bad(
        "tfrecord corrupt record",
        TFRECORD,
        "{tmp}/data/train-00001-of-00002",
        "corrupt record",
        _data("tfrecord", _edit("train-00001-of-00002", _flip_byte(40))),
        mid_run=True,
    ),
    Bad(
        "tfrecord image of another size",
        TFRECORD,
        "{tmp}/data/train-00002-of-00003",
        "record 0: image is 7x5, expected 6x5",
        _data("tfrecord", _odd_size_image),
        mid_run=True,
    ),
    Bad(
        "cifar10 .gz inflating past the cap",
        CIFAR,
        "{tmp}/data/data_batch_1.bin.gz",
        "inflates past 184,380,000 bytes, more than a CIFAR-10 batch (60,000 records)",
        _data("cifar10", _inflating_batch),
    ),
    Bad(
        "mnist header with huge images",
        MNIST,
        IMAGES,
        "images of 100000 x 100000 pixels; at most 8192 per side",
        _data("mnist", _edit("train-images-idx3-ubyte", _idx_dims(24, 100_000, 100_000))),
    ),
    Bad(
        "labels.txt with a huge class id",
        TFRECORD,
        "{tmp}/data/labels.txt",
        "line 2: class id 5000000; class ids are 0..99999 at most",
        _data("tfrecord", lambda d: (d / "labels.txt").write_text("0:a\n5000000:b\n")),
    ),
    Bad(
        "tfrecord shard is a FIFO",
        TFRECORD,
        "{tmp}/data/train-00002-of-00003",
        "not a regular file",
        _data("tfrecord", lambda d: os.mkfifo(d / "train-00002-of-00003")),
    ),
]
