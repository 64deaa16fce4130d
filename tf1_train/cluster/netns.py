"""A private network namespace for a one-machine job.

TensorFlow's gRPC server listens on every interface (IPv4 and IPv6) whatever
host the cluster spec names, without authentication, and its master service
runs any op (ReadFile, WriteFile) for whoever connects; TensorFlow 2.21 has
no option to bind one address or to require TLS. A launcher job whose tasks
all run on this machine needs no network but loopback, so the launcher moves
itself, before starting any task, into a new network namespace with only
``lo`` up: the tasks inherit it, and their ports cannot be reached from
outside it, not even from this machine's own other processes.

This needs CAP_SYS_ADMIN (root) or unprivileged user namespaces; where
neither is allowed the launcher says so in one warning line and runs the job
in the machine's namespace.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import socket
import struct
import threading
from typing import Optional

CLONE_NEWNET = 0x40000000  # linux/sched.h
CLONE_NEWUSER = 0x10000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1  # linux/sockios.h, linux/if.h
_IFREQ = "16sH22x"  # struct ifreq: the name, then ifr_flags in a 24-byte union


def enter_private_network() -> Optional[str]:
    """Moves this process into a new network namespace with loopback up.

    Call it while the process has only its main thread (before any task or
    stream thread starts): a namespace applies to the calling thread and the
    processes it starts. Returns None on success, else why it was not done.
    """
    if threading.active_count() > 1:
        return "the launcher already runs threads"
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        unshare = libc.unshare
    except (OSError, AttributeError) as e:
        return f"no unshare() here ({e})"
    if unshare(CLONE_NEWNET) != 0:
        first = ctypes.get_errno()
        if first != errno.EPERM or not _enter_user_namespace(unshare):
            return f"unshare(CLONE_NEWNET): {os.strerror(first)}"
    try:
        _bring_up("lo")
    except OSError as e:
        return f"bringing up lo in the new namespace: {e.strerror or e}"
    return None


def _enter_user_namespace(unshare) -> bool:
    """Without root: a user namespace mapping this user to itself, which
    grants the capabilities a new network namespace needs."""
    uid, gid = os.getuid(), os.getgid()
    if unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return False
    try:
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError:
        return False
    return True


def _bring_up(interface: str) -> None:
    """``ip link set <interface> up`` through the SIOCSIFFLAGS ioctl."""
    name = interface.encode()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        got = fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, struct.pack(_IFREQ, name, 0))
        flags = struct.unpack(_IFREQ, got)[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack(_IFREQ, name, flags | IFF_UP))
