"""The one-machine launcher (python -m tf1_train.launch) in a single
process: how it plans a job, parses its arguments, and supervises fake tasks
(statuses, timeouts, signals to each task's process group)."""

import json
import os
import re
import signal
import subprocess
import time

import pytest

from tests.fork_server import is_zombie
from tf1_train.cluster import launch


def test_launcher_plans_the_same_cluster_with_flags_or_tf_config():
    by_flags = launch.plan_tasks(1, 2, ["--model=mlp"], use_tf_config=False)
    assert [t.name for t in by_flags] == ["ps0", "worker0", "worker1"]
    assert all(t.argv[-1] == "--model=mlp" and "TF_CONFIG" not in t.env for t in by_flags)
    w1 = by_flags[2].argv
    assert "--job_name=worker" in w1 and "--task_index=1" in w1
    hosts = [a for a in w1 if a.startswith(("--ps_hosts", "--worker_hosts"))]
    assert all("127.0.0.1:" in h for h in hosts)
    by_env = launch.plan_tasks(1, 2, [], use_tf_config=True)
    doc = json.loads(by_env[2].env["TF_CONFIG"])
    assert doc["task"] == {"type": "worker", "index": 1}
    assert len(doc["cluster"]["ps"]) == 1 and len(doc["cluster"]["worker"]) == 2


def test_launcher_arguments():
    args, rest = launch.parse_args(["--num_workers=3", "--", "--model=mlp", "--", "x"])
    assert (args.num_ps, args.num_workers, rest) == (1, 3, ["--model=mlp", "--", "x"])
    with pytest.raises(SystemExit):
        launch.parse_args(["--num_ps=0"])
    assert launch.exit_status(-9) == 137 and launch.exit_status(3) == 3


def _fake_tasks(*scripts):
    """Launcher tasks that run tiny shell scripts instead of training."""
    return [
        launch.Task(f"worker{i}", ["sh", "-c", script], {"PATH": "/usr/bin:/bin"})
        for i, script in enumerate(scripts)
    ]


@pytest.mark.timeout(60)
def test_launcher_returns_the_first_failure_and_stops_the_rest(capfd, tmp_path):
    # worker0 fails only once worker1 has printed (a loaded machine may start
    # worker1 late: a fixed sleep let worker0 exit first and worker1 be stopped
    # before its line)
    started = tmp_path / "worker1_started"
    tasks = _fake_tasks(
        f"echo hello; while [ ! -e {started} ]; do sleep 0.05; done; exit 3",
        f"echo waiting; touch {started}; exec sleep 30",
    )
    procs, threads = launch.start(tasks)
    status = launch.supervise(tasks, procs, timeout_secs=50)
    for t in threads:
        t.join(timeout=5)
    out, err = capfd.readouterr()
    assert status == 3
    assert procs[1].returncode == -15  # SIGTERM from the launcher
    assert "[worker0] hello" in out and "[worker1] waiting" in out
    assert "[launch] worker0 exited with status 3" in err
    assert "[launch] stopping the other tasks" in err


@pytest.mark.timeout(60)
def test_launcher_timeout_stops_everything_with_status_124(capfd):
    tasks = _fake_tasks("exec sleep 30", "exec sleep 30")
    procs, _ = launch.start(tasks)
    assert launch.supervise(tasks, procs, timeout_secs=0.5) == launch.TIMEOUT_STATUS
    assert all(p.returncode is not None for p in procs)
    assert "timed out after 0.5 s (--timeout_secs)" in capfd.readouterr().err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_launcher_stops_each_task_group_with_128_plus_the_signal(capfd, sig):
    # Each task leads a process group; the child it started (a `sleep` in
    # the background here) is signalled with it, not left behind.
    tasks = _fake_tasks("sleep 30 & echo child $!; wait", "exec sleep 30")
    procs, threads = launch.start(tasks)
    request = launch.StopRequest()
    child = None
    deadline = time.monotonic() + 30
    while child is None and time.monotonic() < deadline:
        found = re.search(r"\[worker0\] child (\d+)", capfd.readouterr().out)
        child = int(found[1]) if found else None
        time.sleep(0.05)
    assert child is not None and all(p.poll() is None for p in procs)
    request(sig, None)
    assert launch.supervise(tasks, procs, timeout_secs=50, stop_request=request) == 128 + sig
    for t in threads:
        t.join(timeout=5)
    err = capfd.readouterr().err
    assert f"[launch] {signal.Signals(sig).name} received; stopping all tasks" in err
    assert all(p.returncode is not None for p in procs)
    # Signalled with its group; on a loaded machine it may not have run yet
    # to die (a full suite once caught it still sleeping, state S).
    deadline = time.monotonic() + 10
    while not is_zombie(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert is_zombie(child)  # or gone


@pytest.mark.timeout(60)
def test_a_signal_during_start_is_acted_on_once_every_task_started(monkeypatch, capfd):
    # Ctrl-C while the tasks start: held until all are started and recorded,
    # then handled; no task is left unsupervised.
    request = launch.StopRequest()
    previous = signal.signal(signal.SIGINT, request)
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # arrives while start() holds it
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(launch.subprocess, "Popen", popen)
    try:
        tasks = _fake_tasks("exec sleep 30", "exec sleep 30")
        procs, threads = launch.start(tasks)
        assert request.signum == signal.SIGINT
        assert len(procs) == 2 and all(p.poll() is None for p in procs)
        assert launch.supervise(tasks, procs, timeout_secs=50, stop_request=request) == 130
        assert [p.returncode for p in procs] == [-signal.SIGTERM] * 2
    finally:
        signal.signal(signal.SIGINT, previous)
    for t in threads:
        t.join(timeout=5)
    assert "[launch] SIGINT received; stopping all tasks" in capfd.readouterr().err
