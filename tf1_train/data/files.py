"""Finding and reading dataset files, with one-line errors naming the file.

Every problem with a file becomes a ``UserError`` that names ``--data_dir``,
the file, what is wrong and what was expected, so a run ends with one
``error:`` line instead of a traceback.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import zlib
from typing import BinaryIO, Iterator, Sequence

import numpy as np

from tf1_train import paths
from tf1_train.errors import UserError

# No dataset file read into memory may exceed this, compressed or not (the
# largest standard one, MNIST's training images, is 47 MB): a file past it is
# refused in one line before it can exhaust memory.
MAX_FILE_BYTES = 1 << 31
# A per-dimension bound on image sizes read from headers (IDX, PNG, JPEG).
MAX_IMAGE_SIDE = 8192
# Classes a labels.txt or the labels may name (ImageNet-21k has 21,841).
MAX_CLASSES = 100_000
_CHUNK = 1 << 20


def file_error(path: str, problem: str) -> UserError:
    return UserError(f"--data_dir: {path}: {problem}")


def check_dir(data_dir: str, dataset: str) -> None:
    paths.check_data_dir(data_dir, dataset)


def check_regular(path: str) -> None:
    """Refuses a name that exists but is no regular file.

    A directory or FIFO with a dataset file's name is a mistake to report,
    not a file to skip (training would silently use less data) or to open
    (reading a FIFO nobody writes to blocks forever).
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kinds = {stat.S_ISDIR: "a directory", stat.S_ISFIFO: "a FIFO", stat.S_ISSOCK: "a socket"}
        kind = next((k for test, k in kinds.items() if test(mode)), "a device")
        raise file_error(path, f"is {kind}, not a regular file; put the dataset's file there")


def find_file(data_dir: str, name: str, expected: Sequence[str], dataset: str) -> str:
    """``data_dir/name`` or ``data_dir/name.gz``, the plain file first.

    Args:
      data_dir: the directory to look in.
      name: the file's standard name.
      expected: every file the dataset needs, for the error message.
      dataset: the dataset's flag value, for the error message.
    """
    check_dir(data_dir, dataset)
    for candidate in (name, name + ".gz"):
        path = os.path.join(data_dir, candidate)
        if os.path.exists(path):
            check_regular(path)
            return path
    raise file_error(
        os.path.join(data_dir, name),
        f"not found (nor {name}.gz); --dataset={dataset} needs {', '.join(expected)}",
    )


def read_bytes(path: str, limit: int = MAX_FILE_BYTES, what: str = "a dataset file") -> bytes:
    """The file's contents, gunzipped when the name ends in .gz, refusing any
    file (or decompressed stream) longer than ``limit`` bytes: a
    decompression bomb or a wrong file must not exhaust memory."""
    with open_stream(path) as f:
        return read_at_most(path, f, limit, what)


@contextlib.contextmanager
def open_stream(path: str) -> Iterator[BinaryIO]:
    """The file as a binary stream (gunzipped for .gz), read errors as one
    line; for readers that check a header before reading the rest."""
    try:
        with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
            yield f
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise file_error(path, f"not a complete gzip file ({e}); re-download it") from None
    except OSError as e:
        raise file_error(path, f"cannot be read ({e.strerror or e})") from None


def read_at_most(path: str, f: BinaryIO, limit: int, what: str) -> bytes:
    """The rest of ``f`` in chunks, or one line once more than ``limit``
    bytes came out (never allocating more than ``limit`` + one chunk)."""
    chunks, total = [], 0
    while True:
        chunk = f.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            verb = "inflates" if path.endswith(".gz") else "runs"
            raise file_error(
                path,
                f"{verb} past {limit:,} bytes, more than {what} can hold; "
                "it is damaged or not the dataset's file",
            )


def check_labels(path: str, labels: np.ndarray, num_classes: int, dataset: str) -> None:
    """Refuses a label outside 0..num_classes-1, naming the first one."""
    bad = np.flatnonzero(labels >= num_classes)
    if bad.size:
        raise file_error(
            path,
            f"label {labels[bad[0]]} at record {bad[0]}; {dataset} labels are 0..{num_classes - 1}",
        )
