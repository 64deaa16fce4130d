"""One writer per train_dir, and files that are never half-written nor
someone else's: the lock, exclusive temporaries, leftovers of killed writes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import uuid

import pytest

from tests.conftest import ROOT
from tf1_train import files, lock
from tf1_train.errors import UserError

HOLD = (
    "import sys, time; from tf1_train import lock\n"
    "with lock.hold(sys.argv[1]):\n"
    "    print('held', flush=True); time.sleep(60)\n"
)


def _holder(train_dir):
    """Another process holding train_dir's lock; returns it once it holds it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(train_dir)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "held\n"
    return proc


@pytest.mark.timeout(60)
def test_a_second_writer_is_refused_naming_the_holder_until_it_is_killed(tmp_path):
    first = _holder(tmp_path)
    try:
        with pytest.raises(UserError) as e:
            with lock.hold(str(tmp_path)):
                pass
        message = str(e.value)
        assert f"--train_dir={tmp_path}: in use by another run" in message
        assert f"pid {first.pid} on host {socket.gethostname()}" in message
        assert "\n" not in message
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    # The kernel dropped the killed holder's lock; the file it left is reused.
    assert (tmp_path / lock.LOCK_NAME).exists()
    with lock.hold(str(tmp_path)):
        with lock.hold(str(tmp_path)):  # re-entrant within one process
            text = (tmp_path / lock.LOCK_NAME).read_text()
            assert text == f"pid {os.getpid()} on host {socket.gethostname()}\n"
    assert not (tmp_path / lock.LOCK_NAME).exists()


def test_a_symlink_as_lock_file_is_refused(tmp_path):
    (tmp_path / lock.LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UserError, match="must be a regular file"):
        with lock.hold(str(tmp_path)):
            pass
    assert not (tmp_path / "elsewhere").exists()


def test_atomic_write_replaces_a_planted_temporary_without_following_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    target = tmp_path / "run_summary.json"
    (tmp_path / "run_summary.json.tmp").symlink_to(victim)
    files.write_atomic(str(target), "new\n")
    assert target.read_text() == "new\n" and victim.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run_summary.json", "victim"]


def test_temporaries_of_the_state_file_left_by_a_kill_are_removed_after_a_save(tmp_path):
    from tf1_train import checkpoints

    killed = tmp_path / f"checkpoint.tmp{uuid.uuid4().hex}"
    unrelated = tmp_path / "checkpoint.tmp-mine"
    for path in (killed, unrelated):
        path.write_text("x")
    checkpoints.remove_leftovers(str(tmp_path), kept=[], step=5)
    assert not killed.exists() and unrelated.exists()
