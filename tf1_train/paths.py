"""The paths a run reads and writes, checked before anything runs.

Imports neither absl nor TensorFlow: main.py calls these before TensorFlow
loads, so an unusable --train_dir, --trace_file or --data_dir is reported at
once instead of after seconds of imports; the library calls them again where
it uses the path (cheap, and it must hold whoever starts the run).
"""

from __future__ import annotations

import os

from tf1_train import files
from tf1_train.errors import UserError


def prepare_train_dir(path: str) -> None:
    """Creates train_dir or fails with one line if it cannot be written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(
            f"--train_dir={path}: exists and is not a directory; "
            "give a directory (it is created if missing)"
        )
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".write_test")
        os.close(files.open_exclusive(probe))  # a symlink there is not followed
        os.unlink(probe)
    except OSError as e:
        raise UserError(
            f"--train_dir={path}: cannot be created or written ({e.strerror}); "
            "choose a writable directory"
        ) from None


def check_trace_file(path: str | None) -> None:
    """Fails at startup, not after training, if the trace cannot be written."""
    if not path:
        return
    if os.path.isdir(path):
        raise UserError(f"--trace_file={path}: is a directory; give a file name such as trace.json")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UserError(
            f"--trace_file={path}: directory {parent} does not exist; "
            "create it or give a path in an existing directory"
        )


def check_data_dir(data_dir: str | None, dataset: str, synthetic: bool = False) -> None:
    """--data_dir, when the run reads files from it, is a directory.

    Synthetic data reads no files, except tfrecord's, which takes the image
    shape and the class count from the real files.
    """
    reads = dataset != "digits" and (not synthetic or dataset == "tfrecord")
    if data_dir and reads and not os.path.isdir(data_dir):
        raise UserError(
            f"--data_dir={data_dir}: not a directory; --dataset={dataset} reads its files from it"
        )
