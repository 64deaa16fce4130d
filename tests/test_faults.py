"""Faults: SIGKILL anywhere in training or checkpoint writing loses nothing saved.

Twenty seeded trials on one train_dir. Each trial starts a run with a higher
--train_steps than the last, kills it with SIGKILL at a point drawn from a
seeded RNG (a random moment during training and saving, a random moment of
start-up, or a precise phase of a checkpoint save or of run_summary.json's
write: see tests/fault_worker.py), then checks the train_dir: the newest
checkpoint (by its .index file, as tf1_train finds them) and the one the
``checkpoint`` state file names are both loadable and no older than before
the kill (the state file may stay one save behind the newest bundle until a
run gets past its restore); run_summary.json is absent or valid JSON. The
next trial's run must resume from exactly that newest checkpoint; a last run
finishes.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from typing import NamedTuple

import pytest
import tensorflow as tf

from tests.fault_client import Forker, is_zombie
from tf1_train import checkpoints, devices, loop
from tf1_train import config as cfglib

SEED = 20240807
DATA_INDEX = ("data-00000-of-00001", "index")
TRIALS = 20
STEPS_PER_TRIAL = 120
RUN = [
    "--model=mlp",
    "--batch_size=8",
    "--save_checkpoint_steps=2",
    "--save_summary_steps=5",
    "--display_every=1",
    "--num_warmup_steps=0",
    "--device=cpu",
]
# The twenty trials' kinds, shuffled by the seeded RNG: most kill at a random
# moment of training and saving, every precise kill point gets two trials.
KINDS = ["step"] * 9 + ["startup"] * 3 + ["state_file", "delete_old", "delete_data", "summary"] * 2


def _wait_for(log, pattern, pid, timeout=120.0) -> bool:
    """Polls the log for a regex; False if the process ended first."""
    regex = re.compile(pattern, re.M)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(log) and regex.search(open(log).read()):
            return True
        if is_zombie(pid):
            return False
        time.sleep(0.002)
    raise AssertionError(f"no {pattern!r} in {log} after {timeout} s")


def _loadable_step(prefix) -> int:
    """Reads every tensor of a checkpoint; returns its global step."""
    reader = tf.train.load_checkpoint(prefix)
    names = reader.get_variable_to_shape_map()
    assert {"fc1/weights", "logits/biases", "global_step"} <= set(names), sorted(names)
    for name in names:
        reader.get_tensor(name)
    return int(reader.get_tensor("global_step"))


class Saved(NamedTuple):
    """Steps on disk: the newest whole checkpoint, and the one the state file names."""

    newest: int = 0
    state: int = 0


def _check_train_dir(train_dir, before: Saved, restored: bool) -> Saved:
    """The state after a kill (``restored``: the run printed its resume line).

    A kill between a bundle's rename and the state file's update leaves the
    file one save behind; it stays so until the next run restores (which
    points it at the newest bundle) or saves. So the file must never go back,
    and must name the newest checkpoint of before the kill once the run got
    past its restore.
    """
    found = checkpoints.find(str(train_dir))
    now = Saved()
    if found:
        newest = _loadable_step(found[0])
        assert found[0].endswith(f"-{newest}")
        state = tf.train.latest_checkpoint(str(train_dir))
        assert state is not None, f"no state file, newest checkpoint {found[0]}"
        now = Saved(newest, _loadable_step(state))
        assert now.state >= before.state, f"the state file went back: {before} -> {now}"
        if restored:
            assert now.state >= before.newest, (
                f"restored, state file not caught up: {before} -> {now}"
            )
    assert now.newest >= before.newest, f"saved step {before.newest} lost: {before} -> {now}"
    summary = train_dir / "run_summary.json"
    if summary.exists():
        json.loads(summary.read_text())
    return now


def _kill_plan(rng, kind, start, target):
    """(kill_at for the worker, regex to wait for, extra delay) of one trial."""
    if kind == "step":
        step = rng.randint(start + 1, target - 40)
        return None, rf"^step {step}/", rng.uniform(0.0, 0.02)
    if kind == "startup":
        # Session creation, restore and input start take ~0.2 s; 120 mlp steps
        # take ~0.15 s on a fast CPU, so a longer delay could miss the run
        # altogether (it finished before the kill). Kills inside the steps
        # are the "step" kind's.
        return None, r"^train_dir: ", rng.uniform(0.0, 0.1)
    if kind == "summary":
        return {"point": "summary", "count": 1}, None, 0.0
    saves = (target - start) // 2
    # max_to_keep=3: a fresh train_dir deletes nothing before its 4th save.
    last = saves - 4 if kind == "delete_data" else saves - 1
    return {"point": kind, "count": rng.randint(1, last)}, None, 0.0


@pytest.fixture(scope="module")
def forker():
    f = Forker()
    yield f
    f.close()


def _trial(forker, train_dir, log, rng, kind, saved, target) -> str:
    """One run killed as ``kind`` says; returns its output."""
    kill_at, pattern, delay = _kill_plan(rng, kind, saved, target)
    argv = RUN + [f"--train_steps={target}", f"--train_dir={train_dir}"]
    pid = forker.start(argv, log, kill_at)
    if pattern and _wait_for(str(log), pattern, pid):
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    status = forker.wait(pid)
    text = log.read_text()
    assert status == -signal.SIGKILL, f"{kind}: exit status {status}\n{text[-2000:]}"
    if saved and re.search(r"^(resuming|step) ", text, re.M):  # it got past the restore
        assert f"resuming from {train_dir}/model.ckpt-{saved} (global step {saved})" in text
    return text


def test_sigkill_at_random_points_never_loses_a_checkpoint(tmp_path, forker):
    rng = random.Random(SEED)
    kinds = list(KINDS)
    rng.shuffle(kinds)
    train_dir = tmp_path / "run"
    saved, logs = Saved(), []
    for trial, kind in enumerate(kinds):
        log = tmp_path / f"trial{trial:02d}_{kind}.log"
        target = (trial + 1) * STEPS_PER_TRIAL
        logs.append(_trial(forker, train_dir, log, rng, kind, saved.newest, target))
        restored = re.search(r"^resuming from ", logs[-1], re.M) is not None
        saved = _check_train_dir(train_dir, saved, restored)
    assert len(logs) == TRIALS
    target = (TRIALS + 1) * STEPS_PER_TRIAL
    status, text = forker.run(
        RUN + [f"--train_steps={target}", f"--train_dir={train_dir}"], tmp_path / "final.log"
    )
    assert status == 0, text[-3000:]
    newest = saved.newest
    assert f"resuming from {train_dir}/model.ckpt-{newest} (global step {newest})" in text
    summary = json.loads((train_dir / "run_summary.json").read_text())
    assert summary["global_step"] == target and summary["stopped_by"] == "train_steps"
    for log in logs + [text]:
        assert "Traceback" not in log and "unreadable" not in log
    # What the killed saves left behind is gone: three checkpoints, whole.
    left = sorted(p.name for p in train_dir.glob("model.ckpt-*"))
    steps = [target - 4, target - 2, target]
    assert left == [f"model.ckpt-{s}.{ext}" for s in steps for ext in DATA_INDEX], left


def test_a_kill_before_the_restore_leaves_the_lagging_state_file_to_the_next_run(tmp_path, forker):
    """A kill between a bundle and the state file, then one before the next
    run's restore (a CI run drew this pair at random): the file stays one save
    behind, nothing is lost, and the run after resumes from the newest bundle."""
    train_dir = tmp_path / "run"
    argv = RUN + ["--train_steps=20", f"--train_dir={train_dir}"]
    # The 3rd update names step 6: bundles 2, 4, 6 on disk, the state file at 4.
    status = forker.wait(
        forker.start(argv, tmp_path / "1.log", {"point": "state_file", "count": 3})
    )
    assert status == -signal.SIGKILL
    saved = _check_train_dir(train_dir, Saved(), restored=False)
    assert saved == Saved(newest=6, state=4)
    # The next run's first update is its restore's catch-up: killed there.
    status = forker.wait(
        forker.start(argv, tmp_path / "2.log", {"point": "state_file", "count": 1})
    )
    assert status == -signal.SIGKILL
    assert "resuming from" not in (tmp_path / "2.log").read_text()
    assert _check_train_dir(train_dir, saved, restored=False) == saved
    status, text = forker.run(argv, tmp_path / "3.log")
    assert status == 0, text[-3000:]
    assert f"resuming from {train_dir}/model.ckpt-6 (global step 6)" in text
    assert _check_train_dir(train_dir, saved, restored=True) == Saved(newest=20, state=20)


def _files(train_dir):
    """name -> (bytes, mtime_ns) of every checkpoint file."""
    return {
        p.name: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(train_dir.glob("model.ckpt-*"))
    }


def _error_lines(text):
    return [line for line in text.splitlines() if line.startswith("error: ")]


@pytest.fixture(params=["tmpfs", "rlimit"])
def full_disk(request, tmp_path):
    """(train_dir, faults): a train_dir on a disk that will be full.

    tmpfs: a 2 MB tmpfs filled to the brim after the first run (mounting needs
    root; where it is refused the RLIMIT_FSIZE way is used). rlimit: the run's
    RLIMIT_FSIZE is below a checkpoint's size, so its writes fail with EFBIG.
    """
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = request.param == "tmpfs" and _mount_tmpfs(mount)
    try:
        yield mount / "run", (_fill if mounted else _limit)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mount)], check=False)


def _mount_tmpfs(path) -> bool:
    out = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(path)], capture_output=True
    )
    if out.returncode != 0:
        print(f"mount -t tmpfs refused ({out.stderr.strip()}): using RLIMIT_FSIZE")
    return out.returncode == 0


def _fill(train_dir) -> dict:
    """Fills the tmpfs holding train_dir, but for a few KB."""
    st = os.statvfs(train_dir)
    with open(train_dir.parent / "filler", "wb") as f:
        f.write(b"\0" * max(st.f_bavail * st.f_frsize - 16 * 1024, 0))
    return {}


def _limit(train_dir) -> dict:
    del train_dir
    return {"fsize_limit": 100_000}  # a checkpoint of the mlp is 203 KB


def test_disk_full_while_saving_is_one_line_and_keeps_the_last_checkpoint(
    tmp_path, forker, full_disk
):
    train_dir, make_full = full_disk
    args = RUN + ["--display_every=10", f"--train_dir={train_dir}"]
    status, text = forker.run(args + ["--train_steps=4"], tmp_path / "first.log")
    assert status == 0, text[-2000:]
    before = _files(train_dir)
    faults = make_full(train_dir)
    status, text = forker.run(args + ["--train_steps=8"], tmp_path / "full.log", **faults)
    assert status == 5, text[-3000:]
    assert "Traceback" not in text
    [line] = _error_lines(text)
    assert f"--train_dir={train_dir}: could not write checkpoint model.ckpt-6" in line
    assert "disk is full" in line or "file size limit" in line
    assert f"the newest checkpoint {train_dir}/model.ckpt-4 is intact" in line
    assert _files(train_dir) == before
    assert _loadable_step(str(train_dir / "model.ckpt-4")) == 4


@pytest.mark.timeout(300)
def test_a_file_system_made_read_only_mid_run_is_named_and_keeps_the_last_checkpoint(
    tmp_path, forker
):
    # A read-only tmpfs mounted over train_dir mid-run: every later create or
    # rename there fails with EROFS, as after a kernel's remount of a failing
    # disk (a plain remount is refused while the run holds files open).
    train_dir = tmp_path / "run"
    args = RUN + ["--display_every=1", f"--train_dir={train_dir}"]
    log = tmp_path / "ro.log"
    pid = forker.start(args + ["--train_steps=100000"], log)
    assert _wait_for(log, r"^step 7/", pid)  # model.ckpt-6 was saved
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(train_dir)], capture_output=True
    )
    if mounted.returncode != 0:
        os.kill(pid, signal.SIGKILL)
        forker.wait(pid)
        pytest.skip(f"mount -t tmpfs refused (needs root): {mounted.stderr.strip()}")
    try:
        status = forker.wait(pid)
    finally:
        subprocess.run(["umount", "-l", str(train_dir)], check=False)
    text = log.read_text()
    assert status == 5, text[-3000:]
    assert "Traceback" not in text
    [line] = _error_lines(text)
    assert f"--train_dir={train_dir}: could not write" in line
    assert "read-only file system" in line and "remount it read-write" in line
    assert "free some space" not in line
    newest = checkpoints.find(str(train_dir))[0]
    assert _loadable_step(newest) == int(newest.rsplit("-", 1)[1]) >= 6


def test_out_of_memory_in_a_step_is_one_line_and_keeps_the_last_checkpoint(tmp_path, forker):
    train_dir = tmp_path / "run"
    args = RUN + ["--num_gpus=2", "--display_every=10", f"--train_dir={train_dir}"]
    status, text = forker.run(args + ["--train_steps=4"], tmp_path / "first.log")
    assert status == 0, text[-2000:]
    before = _files(train_dir)
    status, text = forker.run(args + ["--train_steps=20"], tmp_path / "oom.log", oom_at_step=3)
    assert status == 5, text[-3000:]
    assert "Traceback" not in text
    [line] = _error_lines(text)
    assert line.startswith("error: out of memory on /device:CPU:1 after global step 6 ")
    assert "(towers: /device:CPU:0, /device:CPU:1; --batch_size=8 per tower)" in line
    assert "try a smaller --batch_size" in line
    assert f"checkpoint {train_dir}/model.ckpt-6 is intact" in line
    after = _files(train_dir)
    assert {name: after[name] for name in before} == before
    assert _loadable_step(str(train_dir / "model.ckpt-6")) == 6


def test_out_of_memory_on_gpu_towers_says_what_to_try():
    plan = devices.plan_devices(cfglib.DeviceConfig(num_towers=2, device="gpu"), 2)
    error = tf.errors.ResourceExhaustedError(
        None,
        None,
        "OOM when allocating tensor ... on /job:localhost/replica:0/task:0/"
        "device:GPU:1 by allocator GPU_1_bfc",
    )
    line = loop.out_of_memory(error, plan, 64, 120, "/runs/a/model.ckpt-100")
    assert line == (
        "out of memory on /device:GPU:1 after global step 120 (towers: /device:GPU:0, "
        "/device:GPU:1; "
        "--batch_size=64 per tower): check nvidia-smi for other processes holding GPU "
        "memory, then try a smaller --batch_size, --allow_growth, or --gpu_memory_fraction; "
        "checkpoint /runs/a/model.ckpt-100 is intact"
    )
    unnamed = tf.errors.ResourceExhaustedError(None, None, "OOM")
    assert "on /device:GPU:0 and /device:GPU:1 after global step 3" in loop.out_of_memory(
        unnamed, plan, 64, 3, None
    )
