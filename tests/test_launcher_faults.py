"""Faults around a whole ps/worker job: the launcher killed, a frozen ps, a
signal while waiting, and a job nobody outside its network namespace can
reach. Real processes on 127.0.0.1, ports picked at run time, hard timeouts
(the training-side cluster tests are in test_distributed.py)."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.cluster_job import TRAIN_FLAGS, Job
from tests.conftest import ROOT
from tf1_train.errors import EXIT_CLUSTER


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.timeout(120)
def test_a_sigkilled_launcher_leaves_no_task_alive(tmp_path):
    args = ["--num_ps=1", "--num_workers=2", "--timeout_secs=100", "--", *TRAIN_FLAGS]
    launcher = subprocess.Popen(
        [sys.executable, "-m", "tf1_train.launch", *args, "--train_steps=1000000"]
        + [f"--train_dir={tmp_path / 'train'}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = {}
    try:
        for line in launcher.stderr:
            found = re.match(r"\[launch\] (\w+) started, pid (\d+)", line)
            if found:
                pids[found[1]] = int(found[2])
            if len(pids) == 3:
                break
        assert sorted(pids) == ["ps0", "worker0", "worker1"]
        assert all(_alive(pid) for pid in pids.values())
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in pids.values()):
            time.sleep(0.1)
        left = {name: pid for name, pid in pids.items() if _alive(pid)}
    finally:
        for pid in pids.values():  # the test's own tasks only, by pid
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert not left, f"tasks alive 10 s after the launcher was killed: {left}"


@pytest.mark.timeout(240)
def test_a_frozen_ps_ends_every_worker_within_the_operation_timeout_with_one_line(tmp_path):
    timeout = 10
    flags = ["--train_steps=1000000", "--display_every=10", f"--operation_timeout_secs={timeout}"]
    with Job(tmp_path, [*flags, f"--train_dir={tmp_path / 'train'}"]) as job:
        job.start("ps0", "worker0", "worker1")
        for worker in ("worker0", "worker1"):
            job.wait_for_line(worker, r"step \d+/", timeout=150)
        job.procs["ps0"].send_signal(signal.SIGSTOP)  # alive, its port open, silent
        try:
            # The bound under test: --operation_timeout_secs + 10 s.
            codes = [job.wait(w, timeout=timeout + 10) for w in ("worker0", "worker1")]
        finally:
            job.procs["ps0"].send_signal(signal.SIGCONT)
        errors = [job.text(w, "err").strip().splitlines() for w in ("worker0", "worker1")]
    assert codes == [EXIT_CLUSTER, EXIT_CLUSTER]
    for i, lines in enumerate(errors):
        [line] = [x for x in lines if x.startswith("error: ")]
        assert line.startswith(f"error: worker{i}: training stopped: no answer within ")


@pytest.mark.timeout(240)
def test_a_chief_whose_ps_never_answers_its_session_ends_with_one_line(tmp_path):
    # The ps's port accepts and stays silent (the probe passes: a frozen ps,
    # or another program). The session's device discovery waits at the
    # chief's first run, which no deadline covered: the chief hung for good.
    flags = ["--train_steps=10", "--startup_timeout_secs=3", "--operation_timeout_secs=2"]
    with Job(tmp_path, [*flags, f"--train_dir={tmp_path / 'train'}"]) as job:
        with socket.socket() as silent:
            host, port = job.ps.split(":")
            silent.bind((host, int(port)))
            silent.listen(64)
            job.start("worker0")
            assert job.wait("worker0", timeout=120) == EXIT_CLUSTER
    assert job.text("worker0", "err").strip().splitlines()[-1] == (
        f"error: worker0: creating its session (device discovery on the parameter servers "
        f"{job.ps}): no answer within 5 s; is a parameter server frozen, or is its port held "
        f"by another program?; exiting with status {EXIT_CLUSTER} (retryable: rerun the task)"
    )


@pytest.mark.timeout(240)
def test_sigterm_while_waiting_for_the_chief_ends_the_worker_at_once(tmp_path):
    with Job(tmp_path, ["--train_steps=10", f"--train_dir={tmp_path / 'train'}"]) as job:
        job.start("ps0", "worker1")
        job.wait_for_line("worker1", r"waiting for the chief", timeout=150)
        job.procs["worker1"].send_signal(signal.SIGTERM)
        # 5 s of grace for the call it is blocked in, then 128 + SIGTERM.
        assert job.wait("worker1", timeout=30) == 128 + signal.SIGTERM
    assert "worker1: SIGTERM received while creating its session" in job.text("worker1", "err")


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=3):
            return True
    except OSError:
        return False


def _own_addresses():
    """127.0.0.1 and every address this machine's name resolves to."""
    found = {"127.0.0.1"}
    with contextlib.suppress(OSError):
        found |= {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    return sorted(found)


@pytest.mark.timeout(240)
def test_a_launcher_job_cannot_be_reached_from_outside_its_network_namespace(tmp_path):
    args = ["--num_ps=1", "--num_workers=1", "--timeout_secs=200", "--", *TRAIN_FLAGS]
    launcher = subprocess.Popen(
        [sys.executable, "-m", "tf1_train.launch", *args, "--train_steps=1000000"]
        + ["--display_every=10", f"--train_dir={tmp_path / 'train'}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    ports, lines = [], []
    try:
        for line in launcher.stdout:
            lines.append(line)
            if "warning: no private network namespace" in line:
                pytest.skip(f"network namespaces cannot be made here: {line.strip()}")
            ports += [int(p) for p in re.findall(r"--\w+_hosts=127\.0\.0\.1:(\d+)", line)]
            if line.startswith("[worker0] step "):
                break
        assert any("private network namespace with only loopback" in x for x in lines)
        ports = sorted(set(ports))
        assert len(ports) == 2, "".join(lines)
        # The job trains, so its tasks reach each other inside the namespace;
        # from this test's namespace no address of the machine answers.
        with socket.socket() as mine:  # the probe does see a port that listens
            mine.bind(("127.0.0.1", 0))
            mine.listen()
            assert _answers("127.0.0.1", mine.getsockname()[1])
        reached = [(h, p) for h in _own_addresses() for p in ports if _answers(h, p)]
        launcher.send_signal(signal.SIGTERM)
        launcher.communicate(timeout=120)
    finally:
        launcher.kill()
    assert not reached, f"reachable from outside the job's namespace: {reached}"
    assert launcher.returncode == 128 + signal.SIGTERM
