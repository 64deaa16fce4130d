"""Finding and reading dataset files, with one-line errors naming the file.

Every problem with a file becomes a ``UserError`` that names ``--data_dir``,
the file, what is wrong and what was expected, so a run ends with one
``error:`` line instead of a traceback.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from typing import Sequence

import numpy as np

from tf1_train import paths
from tf1_train.errors import UserError


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


def read_bytes(path: str) -> bytes:
    """The file's contents, gunzipped when the name ends in .gz."""
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        with open(path, "rb") as f:
            return f.read()
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise file_error(path, f"not a complete gzip file ({e}); re-download it") from None
    except OSError as e:
        raise file_error(path, f"cannot be read ({e.strerror or e})") from None


def check_labels(path: str, labels: np.ndarray, num_classes: int, dataset: str) -> None:
    """Refuses a label outside 0..num_classes-1, naming the first one."""
    bad = np.flatnonzero(labels >= num_classes)
    if bad.size:
        raise file_error(
            path,
            f"label {labels[bad[0]]} at record {bad[0]}; {dataset} labels are 0..{num_classes - 1}",
        )
