"""MNIST from the four standard IDX files (plain or .gz) in --data_dir.

    train-images-idx3-ubyte  train-labels-idx1-ubyte
    t10k-images-idx3-ubyte   t10k-labels-idx1-ubyte

IDX (LeCun's format): a big-endian magic number ``0x00000803`` (unsigned
bytes, 3 dimensions) or ``0x00000801`` (1 dimension), one big-endian uint32
per dimension, then the data. The magic number, the sizes and the exact
length are checked, so a truncated download is refused with the file's name
instead of training on a partial array. Any image size is accepted (Fashion-
MNIST uses the same files); train and test sizes must agree.
"""

from __future__ import annotations

import struct

import numpy as np

from tf1_train.data import files
from tf1_train.data.source import ArraySource

TRAIN_IMAGES = "train-images-idx3-ubyte"
TRAIN_LABELS = "train-labels-idx1-ubyte"
TEST_IMAGES = "t10k-images-idx3-ubyte"
TEST_LABELS = "t10k-labels-idx1-ubyte"
FILES = (TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS)
IMAGES_MAGIC = 0x00000803
LABELS_MAGIC = 0x00000801
NUM_CLASSES = 10


def load(data_dir: str) -> ArraySource:
    """Reads and checks the four files; images become [N, H, W, 1] uint8."""
    train_images, train_labels = _split(data_dir, TRAIN_IMAGES, TRAIN_LABELS)
    test_images, test_labels = _split(data_dir, TEST_IMAGES, TEST_LABELS)
    if test_images.shape[1:] != train_images.shape[1:]:
        raise files.file_error(
            _find(data_dir, TEST_IMAGES),
            f"images are {test_images.shape[1]}x{test_images.shape[2]} but the training "
            f"images are {train_images.shape[1]}x{train_images.shape[2]}; both must match",
        )
    return ArraySource("mnist", train_images, train_labels, test_images, test_labels, NUM_CLASSES)


def _find(data_dir: str, name: str) -> str:
    return files.find_file(data_dir, name, FILES, "mnist")


def _split(data_dir: str, images_name: str, labels_name: str):
    images_path, labels_path = _find(data_dir, images_name), _find(data_dir, labels_name)
    images = read_idx(images_path, IMAGES_MAGIC)
    labels = read_idx(labels_path, LABELS_MAGIC)
    if len(labels) != len(images):
        raise files.file_error(
            labels_path,
            f"holds {len(labels)} labels but {images_path} holds {len(images)} images; "
            "the counts must match",
        )
    files.check_labels(labels_path, labels, NUM_CLASSES, "MNIST")
    return images[..., np.newaxis], labels


def read_idx(path: str, magic: int) -> np.ndarray:
    """The array of an IDX file of unsigned bytes, checked for the magic
    number ``magic`` and for exactly the length its header promises.

    The header is checked before the data is read (image sides up to
    files.MAX_IMAGE_SIDE, at most files.MAX_FILE_BYTES of data), and no more
    than the promised bytes plus one are ever read or decompressed.
    """
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    kind = "images (idx3)" if ndim == 3 else "labels (idx1)"
    with files.open_stream(path) as f:
        head = f.read(header)
        if len(head) < header:
            raise files.file_error(
                path, f"truncated: {len(head)} bytes, shorter than the {header}-byte IDX header"
            )
        (got,) = struct.unpack(">I", head[:4])
        if got != magic:
            raise files.file_error(
                path, f"magic number 0x{got:08x}, expected 0x{magic:08x}: not an IDX {kind} file"
            )
        dims = struct.unpack(f">{ndim}I", head[4:header])
        expected = _promised_bytes(path, dims)
        body = f.read(expected + 1)  # bounded by the check above
    if len(body) != expected:
        what = "truncated" if len(body) < expected else "too long"
        has = "more" if len(body) > expected else str(len(body))
        raise files.file_error(
            path,
            f"{what}: the header promises {' x '.join(map(str, dims))} = {expected} bytes "
            f"of data, the file has {has}; re-download it",
        )
    return np.frombuffer(body, np.uint8).reshape(dims)


def _promised_bytes(path: str, dims) -> int:
    """The data size the header promises, refused past the bounds."""
    sides = dims[1:]
    if any(side > files.MAX_IMAGE_SIDE for side in sides):
        raise files.file_error(
            path,
            f"the header says images of {' x '.join(map(str, sides))} pixels; at most "
            f"{files.MAX_IMAGE_SIDE} per side: the header is damaged or not MNIST's",
        )
    expected = int(np.prod(dims, dtype=np.int64))
    if expected > files.MAX_FILE_BYTES:
        raise files.file_error(
            path,
            f"the header promises {' x '.join(map(str, dims))} = {expected:,} bytes, more "
            f"than the {files.MAX_FILE_BYTES:,} a dataset file may hold: the header is "
            "damaged or not MNIST's",
        )
    return expected
