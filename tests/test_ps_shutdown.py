"""Parameter servers leave by themselves (PORTING.md P9): a real ps process, and
this test process playing the workers through the ps's gRPC target."""

import socket
import subprocess
import sys
import types

import pytest
import tensorflow as tf

from tests.conftest import ROOT
from tf1_train.cluster import server, spec
from tf1_train.config import ClusterConfig
from tf1_train.errors import EXIT_CLUSTER, ClusterError

v1 = tf.compat.v1


def _start_ps(timeout_secs, chief_port=None, extra=()):
    ps, w0, w1 = (f"127.0.0.1:{p}" for p in spec.free_ports(3))
    if chief_port is not None:
        w0 = f"127.0.0.1:{chief_port}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tf1_train.main",
            "--job_name=ps",
            f"--ps_hosts={ps}",
            f"--worker_hosts={w0},{w1}",
            f"--operation_timeout_secs={timeout_secs}",
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, ClusterConfig(ps_hosts=(ps,), worker_hosts=(w0, w1), job_name="worker")


def _report_done(cfg, workers):
    """Enqueues the tokens of ``workers`` exactly as a finishing worker does."""
    spec.wait_for_tasks(cfg, "ps", [0], timeout_secs=60)
    for i in workers:
        graph = tf.Graph()
        with graph.as_default():
            ops = server.shutdown_ops(ClusterConfig(**{**cfg.__dict__, "task_index": i}))
        config = v1.ConfigProto(device_filters=["/job:ps/task:0"])
        with v1.Session(f"grpc://{cfg.ps_hosts[0]}", graph=graph, config=config) as sess:
            server.notify_parameter_servers(sess, ops)


@pytest.mark.timeout(120)
def test_parameter_server_exits_0_when_every_worker_reported():
    proc, cfg = _start_ps(timeout_secs=60)
    try:
        spec.wait_for_tasks(cfg, "ps", [0], timeout_secs=60)
        # The server speaks first, HTTP/2's SETTINGS frame (type 4) as it
        # accepts: spec.reachable tells it from a port that hangs up.
        host, port = cfg.ps_hosts[0].split(":")
        with socket.create_connection((host, int(port)), timeout=10) as probe:
            assert probe.recv(9, socket.MSG_WAITALL)[3] == 4
        _report_done(cfg, [1, 0])
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "ps0: worker1 done (1 of 2)" in out and "ps0: worker0 done (2 of 2)" in out
    assert "ps0: all workers done, exiting" in out


@pytest.mark.timeout(120)
def test_parameter_server_gives_up_on_a_dead_worker_after_the_chief():
    # A worker killed mid-run never reports; once the chief has, the ps
    # waits --operation_timeout_secs more, names the missing worker, exits 0.
    proc, cfg = _start_ps(timeout_secs=2)
    try:
        _report_done(cfg, [0])
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "warning: ps0: worker1 did not report done within 2 s of the chief" in err


def test_chief_watch_gives_up_only_on_a_chief_it_has_seen():
    cfg = ClusterConfig(ps_hosts=("p:1",), worker_hosts=("c:2",), startup_timeout_secs=10)
    up = {"c:2": False}
    watch = server.ChiefWatch(cfg, "ps0", lambda address: up[address])
    for t in range(0, 100, 2):  # never seen (a firewall?): waits as before
        watch.check(float(t))
    up["c:2"] = True
    watch.check(100.0)
    up["c:2"] = False
    watch.check(102.0)  # lost: the clock starts
    watch.check(110.0)
    up["c:2"] = True
    watch.check(112.0)  # back (a restarted chief): the clock stops
    up["c:2"] = False
    watch.check(114.0)
    watch.check(124.0)
    with pytest.raises(ClusterError, match=r"^ps0: the chief \(worker0 at c:2\) has not been"):
        watch.check(126.0)


@pytest.mark.timeout(120)
def test_parameter_server_exits_retryable_when_the_chief_is_gone_for_good():
    # The chief's port, played by a listening socket, goes away for good:
    # the ps waits --startup_timeout_secs, then says so in one line.
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    proc, _ = _start_ps(60, held.getsockname()[1], ["--startup_timeout_secs=2"])
    try:
        while "ps0: the chief (worker0 at" not in proc.stdout.readline():
            assert proc.poll() is None, proc.stderr.read()
        held.close()
        out, err = proc.communicate(timeout=60)
    finally:
        held.close()
        proc.kill()
    assert proc.returncode == EXIT_CLUSTER, err
    assert "is not reachable; waiting up to 2 s for it to come back" in out
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in err, err
    assert errors[0].startswith("error: ps0: the chief (worker0 at 127.0.0.1:")
    assert "has not been reachable for 2 s (--startup_timeout_secs)" in errors[0]


def test_a_worker_closes_its_session_before_its_token_lets_the_ps_go(monkeypatch):
    # A ps exits once it holds every worker's token, and TensorFlow's close
    # of a session that reaches a ps already gone waits for it: the last
    # worker to report, closing after its token, ended a finished job with
    # the watchdog's 203 (1 run in 3 here once the tasks started as fast as
    # a ps exits). The token goes through a session of its own, never closed.
    from tf1_train.cluster import worker

    events = []

    class Session:
        def __init__(self, target=None, graph=None, config=None):
            self.name = "main" if target is None else "tokens"

        def close(self):
            events.append(("close", self.name))

    def notify(sess, ops):
        events.append(("token", sess.name))
        return True

    monkeypatch.setattr(server, "notify_parameter_servers", notify)
    monkeypatch.setattr(worker.v1, "Session", Session)
    monkeypatch.setattr(worker, "_ABANDONED", [])
    with socket.create_server(("127.0.0.1", 0)) as ps:  # a ps that accepts connections
        task = _task(f"127.0.0.1:{ps.getsockname()[1]}")
        worker._shutdown(task, Session(), None, notify=True)
        assert events == [("close", "main"), ("token", "tokens")]
        assert [s.name for s in worker._ABANDONED] == ["tokens"]  # never closed
        events.clear()
        worker._shutdown(task, Session(), None, notify=False)  # stopped by a signal: no token
        assert events == [("close", "main")]


def _task(ps_host: str):
    from tf1_train.cluster import worker

    cluster = ClusterConfig(ps_hosts=(ps_host,), worker_hosts=("127.0.0.1:2",))
    return worker.Task(
        cfg=types.SimpleNamespace(cluster=cluster), plan=None, g=types.SimpleNamespace(graph=None),
        server=types.SimpleNamespace(target="grpc://127.0.0.1:2"), config=None, name="worker0",
        ready=None, shutdown=["token_op"],
    )  # fmt: skip


def test_a_ps_already_gone_gets_no_token_and_one_warning(monkeypatch, capsys):
    # A dead ps needs no token, and a new session would wait for it: the
    # finished worker says so and returns (tests/test_faults.py kills a real
    # one at that moment).
    from tf1_train.cluster import worker

    closed = []
    monkeypatch.setattr(server, "notify_parameter_servers", lambda *a: closed.append("token"))
    monkeypatch.setattr(worker.v1, "Session", lambda *a, **k: closed.append("tokens session"))
    dead = f"127.0.0.1:{spec.free_ports(1)[0]}"  # nothing listens there
    main = types.SimpleNamespace(close=lambda: closed.append("close"))
    worker._shutdown(_task(dead), main, None, notify=True)
    assert closed == ["close"]
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"warning: worker0: ps0 at {dead} gone after the last step")
