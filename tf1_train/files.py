"""Files that appear whole or not at all, and are never someone else's.

A temporary file is created with ``O_EXCL | O_NOFOLLOW`` in the directory
of its target, so a symlink planted under its name is not followed and two
writers cannot share it; the directory is fsynced after the rename, so the
new name survives a power loss along with the data. Imports neither absl nor
TensorFlow (``paths`` uses it before TensorFlow loads).
"""

from __future__ import annotations

import contextlib
import os

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def open_exclusive(path: str) -> int:
    """A new file at ``path``, opened for writing; a leftover one (a file or a
    symlink some earlier process left there) is unlinked first, never followed."""
    try:
        return os.open(path, _CREATE, 0o644)
    except FileExistsError:
        os.unlink(path)
        return os.open(path, _CREATE, 0o644)


def fsync_dir(directory: str) -> None:
    """Makes renames and unlinks in ``directory`` durable."""
    fd = os.open(directory or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str, text: str) -> None:
    """Writes ``text`` so readers see the old file or the new one, never half.

    The temporary file has a fixed name next to ``path``: a process killed
    between writing and renaming it leaves one stale file that the next write
    replaces, not a new one per kill.
    """
    tmp = path + ".tmp"
    fd = open_exclusive(tmp)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(os.path.dirname(path))
