"""Checks on TFRecord files that need no TensorFlow session.

Nothing here creates a ``tf.Session``: the first session of a process fixes
its GPU options (PORTING.md P11), so loading data must not open one before the
training session does. Records are counted by walking the TFRecord framing
(``uint64 length, uint32 masked crc32c(length), data, uint32 masked
crc32c(data)``) with seeks, which checks every length and its CRC and finds a
truncated file without reading the payloads. Whole records (payload CRCs,
``tf.train.Example`` parsing) are read through TensorFlow's C++ record
reader only where needed: for labels when no ``labels.txt`` says how many
classes there are, and to find the culprit after a read failed.
"""

from __future__ import annotations

import os
import struct
from typing import Iterator, List, Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train.data import files

ENCODED = "image/encoded"
LABEL = "image/class/label"
FORMAT = "image/format"
HEIGHT = "image/height"
WIDTH = "image/width"
_CLASS_BOUND = f"class ids are 0..{files.MAX_CLASSES - 1} at most"
LABELS_FILE = "labels.txt"  # TF-slim's dataset_utils writes "<id>:<name>" lines

_HEADER = 12  # uint64 length + uint32 masked crc of the length


def _crc32c_table() -> List[int]:
    table = []
    for n in range(256):
        crc = n
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def masked_crc32c(data: bytes) -> int:
    """TFRecord's checksum: CRC-32C (Castagnoli), rotated and offset."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def count_records(path: str) -> int:
    """Records in a TFRecord file, checking the framing (not the payloads)."""
    size = os.path.getsize(path)
    count = pos = 0
    with open(path, "rb") as f:
        while pos < size:
            header = f.read(_HEADER)
            if len(header) < _HEADER:
                raise _truncated(path, count, pos)
            length_bytes, (length_crc,) = header[:8], struct.unpack("<I", header[8:])
            if masked_crc32c(length_bytes) != length_crc:
                raise files.file_error(
                    path,
                    f"record {count} at byte {pos}: bad length checksum; "
                    "the file is corrupt or not a TFRecord file",
                )
            (length,) = struct.unpack("<Q", length_bytes)
            pos += _HEADER + length + 4
            if pos > size:
                raise _truncated(path, count, pos - length - 4 - _HEADER)
            f.seek(pos)
            count += 1
    return count


def _truncated(path: str, record: int, pos: int):
    return files.file_error(
        path, f"truncated: record {record} at byte {pos} is cut off; re-write the file"
    )


def read_records(path: str) -> Iterator[bytes]:
    """Every record's payload, CRC-checked by TensorFlow's reader."""
    try:
        yield from tf.compat.v1.io.tf_record_iterator(path)
    except tf.errors.DataLossError as e:
        raise files.file_error(path, f"corrupt record ({_first_line(e.message)})") from None


def parse_example(path: str, index: int, record: bytes) -> Tuple[bytes, int]:
    """(encoded image, label) of one serialized ``tf.train.Example``."""
    try:
        feature = tf.train.Example.FromString(record).features.feature
    except Exception as e:  # protobuf raises its own DecodeError
        raise files.file_error(path, f"record {index} is not a tf.train.Example ({e})") from None
    if ENCODED not in feature or LABEL not in feature:
        raise files.file_error(
            path, f"record {index} lacks {ENCODED!r} or {LABEL!r} (the TF-slim layout)"
        )
    encoded, label = feature[ENCODED].bytes_list.value, feature[LABEL].int64_list.value
    if len(encoded) != 1 or len(label) != 1:
        raise files.file_error(path, f"record {index}: {ENCODED} and {LABEL} need one value each")
    return encoded[0], int(label[0])


def image_shape(encoded: bytes) -> Optional[Tuple[int, int, int]]:
    """(height, width, channels) from a PNG or JPEG header; None otherwise.

    Channels are what the pipeline decodes to: 1 for greyscale, else 3
    (alpha is dropped, palettes become RGB).
    """
    if encoded.startswith(b"\x89PNG\r\n\x1a\n") and len(encoded) >= 26:
        width, height = struct.unpack(">II", encoded[16:24])
        return height, width, 1 if encoded[25] in (0, 4) else 3
    if encoded.startswith(b"\xff\xd8"):
        return _jpeg_shape(encoded)
    return None


def _jpeg_shape(data: bytes) -> Optional[Tuple[int, int, int]]:
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        is_sof = 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC)
        if is_sof and pos + 10 <= len(data):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return height, width, 1 if data[pos + 9] == 1 else 3
        pos += 2 + length
    return None


def first_example_shape(path: str) -> Tuple[int, int, int]:
    """The image shape of a file's first record (all must share it)."""
    for record in read_records(path):
        encoded, _ = parse_example(path, 0, record)
        shape = image_shape(encoded)
        if shape is None:
            raise files.file_error(path, f"record 0: {ENCODED} is neither PNG nor JPEG")
        if max(shape[:2]) > files.MAX_IMAGE_SIDE:
            raise files.file_error(
                path,
                f"record 0: its header says the image is {shape[0]}x{shape[1]}; at most "
                f"{files.MAX_IMAGE_SIDE} pixels per side (resize the images)",
            )
        return shape
    raise files.file_error(path, "holds no records")


def labels_txt_classes(data_dir: str) -> Optional[int]:
    """Number of classes from ``labels.txt`` (max id + 1), if the file exists."""
    path = os.path.join(data_dir, LABELS_FILE)
    if not os.path.isfile(path):
        return None
    ids = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            head = line.split(":", 1)[0]
            if not head.strip().isdigit():
                raise files.file_error(path, f"line {n}: expected '<class id>:<name>'")
            ids.append(int(head))
            if ids[-1] >= files.MAX_CLASSES:
                raise files.file_error(path, f"line {n}: class id {ids[-1]}; {_CLASS_BOUND}")
    if not ids:
        raise files.file_error(path, "no '<class id>:<name>' lines")
    return max(ids) + 1


def max_label(paths: Sequence[str]) -> int:
    """The largest label in the files (reads every record)."""
    top = -1
    for path in paths:
        for i, record in enumerate(read_records(path)):
            label = parse_example(path, i, record)[1]
            if label >= files.MAX_CLASSES:
                raise files.file_error(path, f"record {i}: label {label}; {_CLASS_BOUND}")
            top = max(top, label)
    return top


def find_problem(paths: Sequence[str], shape: Tuple[int, int, int], num_classes: int) -> None:
    """Raises the UserError of the first bad record in ``paths``, if any."""
    for path in paths:
        for i, record in enumerate(read_records(path)):
            encoded, label = parse_example(path, i, record)
            got = image_shape(encoded)
            if got is None:
                raise files.file_error(path, f"record {i}: {ENCODED} is neither PNG nor JPEG")
            if got[:2] != shape[:2]:
                raise files.file_error(
                    path,
                    f"record {i}: image is {got[0]}x{got[1]}, expected {shape[0]}x{shape[1]} "
                    "(every image must have the size of the first training image)",
                )
            if not 0 <= label < num_classes:
                raise files.file_error(
                    path, f"record {i}: label {label}, expected 0..{num_classes - 1}"
                )


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "no message"
