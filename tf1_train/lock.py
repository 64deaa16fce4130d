"""One writer per train_dir: an exclusive ``flock`` on a lock file in it.

Two processes writing one train_dir (two chiefs, a chief and a single-process
run, a rerun started while the first still runs) would each prune the
other's checkpoints and interleave their summaries. The single process, or a
cluster's chief, holds ``<train_dir>/.tf1_train.lock`` for its whole run;
a second one is refused with one line naming the holder's pid and host,
which the holder writes into the file.

The kernel drops a ``flock`` when its process dies, so a killed run leaves no
stale lock, only the file. A finished run deletes the file while still
holding the lock; a process that opened the old file just before and locks
it after sees that the path no longer names what it locked, and tries again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import sys
from typing import Dict, Iterator

from tf1_train.errors import UserError

LOCK_NAME = ".tf1_train.lock"
_HELD: Dict[str, int] = {}  # realpath of train_dir -> fd: a process may nest runs
_ATTEMPTS = 10


@contextlib.contextmanager
def hold(train_dir: str) -> Iterator[None]:
    """Holds train_dir's lock for the ``with`` block; re-entrant in one process.

    Raises:
      UserError: another process holds it, or the lock file is not a file.
    """
    key = os.path.realpath(train_dir)
    if key in _HELD:
        yield
        return
    path = os.path.join(train_dir, LOCK_NAME)
    fd = _acquire(path, train_dir)
    if fd is None:  # a file system without locks: said once, run anyway
        yield
        return
    _HELD[key] = fd
    try:
        yield
    finally:
        del _HELD[key]
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)


def _acquire(path: str, train_dir: str):
    """The locked fd, with this process's pid and host written into the file."""
    for _ in range(_ATTEMPTS):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise UserError(
                f"--train_dir={train_dir}: cannot open its lock file {path} ({e.strerror}); "
                "remove what is there (it must be a regular file) or choose another --train_dir"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _read_holder(fd)
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise UserError(
                    f"--train_dir={train_dir}: in use by another run ({holder} holds {path}); "
                    "wait for it to finish or stop it, or choose another --train_dir"
                ) from None
            print(
                f"warning: --train_dir={train_dir}: cannot lock {path} ({e.strerror}); "
                "nothing stops a second run from writing the same directory",
                file=sys.stderr,
                flush=True,
            )
            return None
        if _still_named(fd, path):
            with contextlib.suppress(OSError):  # a full disk: the lock still holds
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode(), 0)
            return fd
        os.close(fd)  # locked a file the previous holder had just deleted
    raise UserError(f"--train_dir={train_dir}: could not lock {path}; retry")


def _still_named(fd: int, path: str) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode(errors="replace").strip()
    except OSError:
        text = ""
    return text or "a process that has not written its pid yet"
