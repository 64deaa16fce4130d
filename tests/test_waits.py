"""Waits that always end: the deadline on blocking cluster calls, stop signals
seen while the main thread is blocked, bounded name resolution; and what the
probe of a task's port counts as a task there."""

from __future__ import annotations

import select
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import ROOT
from tf1_train.cluster import spec
from tf1_train.errors import EXIT_CLUSTER

BLOCKED = (
    "import time\n"
    "from tf1_train import signals\n"
    "from tf1_train.cluster import watchdog\n"
    "with signals.graceful_stop():\n"
    "    with watchdog.guard('worker0', 'creating its session', {secs}):\n"
    "        print('blocked', flush=True)\n"
    "        time.sleep(60)\n"
    "print('returned', flush=True)\n"
)


def _blocked(secs):
    return subprocess.Popen(
        [sys.executable, "-c", BLOCKED.format(secs=secs)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.timeout(60)
def test_a_call_past_its_deadline_ends_the_task_with_one_line_and_the_retryable_status():
    proc = _blocked(1)
    out, err = proc.communicate(timeout=50)
    assert proc.returncode == EXIT_CLUSTER >= 128
    assert out == "blocked\n"
    assert err.splitlines() == [
        "error: worker0: creating its session: no answer within 1 s; exiting with "
        f"status {EXIT_CLUSTER} (retryable: rerun the task)"
    ]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_during_a_blocked_call_ends_the_task_after_the_grace(sig):
    # The deadline (40 s) is far off; the signal ends the wait after 5 s.
    proc = _blocked(40)
    assert proc.stdout.readline() == "blocked\n"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=25)
    assert proc.returncode == 128 + sig, err
    assert "returned" not in out
    assert err.splitlines() == [
        f"worker0: {sig.name} received while creating its session; exiting at once "
        "(nothing saved yet)"
    ]


@pytest.mark.timeout(30)
def test_a_name_lookup_that_hangs_counts_as_unreachable(monkeypatch):
    release = threading.Event()

    def hanging(*args, **kwargs):
        release.wait(25)
        raise socket.gaierror("released")

    monkeypatch.setattr(socket, "getaddrinfo", hanging)
    try:
        assert not spec.reachable("slow.example:2222", timeout=0.3)
        with pytest.raises(OSError, match="looking up slow.example took more than 0.3 s"):
            spec.lookup_address("slow.example", 2222, 0.3)
    finally:
        release.set()


def _probe_in_thread(address, timeout):
    """(the thread running ``spec.reachable``, the list its answer goes to)."""
    answer = []
    probe = threading.Thread(target=lambda: answer.append(spec.reachable(address, timeout)))
    probe.start()
    return probe, answer


@pytest.mark.timeout(30)
@pytest.mark.parametrize("goes", ["listener closed", "accepted and closed"])
def test_a_port_that_hangs_up_without_a_word_is_not_a_live_task(goes):
    # "listener closed" is what a SIGKILLed ps leaves for a moment: Linux
    # releases its sockets newest first, so a worker sees its connection
    # reset and probes while the older listening socket still completes
    # handshakes; it resets them as it goes. The probe passed, and the new
    # session waited on a dead ps: with that window widened, 10 runs in 10
    # of the lost-ps test failed (a non-chief's full-suite line, or a hung chief).
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    probe, answer = _probe_in_thread(f"127.0.0.1:{listener.getsockname()[1]}", 10)
    start = time.monotonic()
    assert select.select([listener], [], [], 10)[0]  # the handshake is done
    if goes == "accepted and closed":
        listener.accept()[0].close()
    listener.close()
    probe.join(10)
    assert answer == [False]
    assert time.monotonic() - start < 5  # from the hang-up, not the probe's timeout


@pytest.mark.timeout(30)
def test_a_port_that_speaks_is_reachable_at_once_and_a_silent_one_after_the_timeout():
    # A TensorFlow server speaks first (tests/test_ps_shutdown.py); a frozen
    # ps is silent and still counts, as before: its session's deadline names it.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        probe, answer = _probe_in_thread(address, 10)
        conn = listener.accept()[0]
        conn.sendall(b"\x00")
        probe.join(5)
        conn.close()
        assert answer == [True]
        start = time.monotonic()
        assert spec.reachable(address, timeout=0.5)  # accepted by the kernel, never answered
        assert time.monotonic() - start >= 0.4
