"""Parameter servers leave by themselves (PITFALLS 9): a real ps process, and
this test process playing the workers through the ps's gRPC target."""

import subprocess
import sys

import pytest
import tensorflow as tf

from tests.conftest import ROOT
from tf1_train import cluster, server
from tf1_train.config import ClusterConfig

v1 = tf.compat.v1


def _start_ps(timeout_secs):
    ps, w0, w1 = (f"127.0.0.1:{p}" for p in cluster.free_ports(3))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tf1_train.main",
            "--job_name=ps",
            f"--ps_hosts={ps}",
            f"--worker_hosts={w0},{w1}",
            f"--operation_timeout_secs={timeout_secs}",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, ClusterConfig(ps_hosts=(ps,), worker_hosts=(w0, w1), job_name="worker")


def _report_done(cfg, workers):
    """Enqueues the tokens of ``workers`` exactly as a finishing worker does."""
    cluster.wait_for_tasks(cfg, "ps", [0], timeout_secs=60)
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
