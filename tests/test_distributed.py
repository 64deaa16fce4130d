"""Between-graph training with real ps and worker processes on 127.0.0.1.

Every test has a hard timeout; ports are picked at run time. The async job
runs once (module fixture, through the launcher and TF_CONFIG) and several
tests read what it left.
"""

import json
import math
import re
import signal
import statistics
import subprocess
import sys

import pytest
import tensorflow as tf

from tests.cluster_job import TRAIN_FLAGS, Job
from tests.conftest import ROOT, run_cli
from tf1_train import checkpoints
from tf1_train.errors import EXIT_CLUSTER

ASYNC_STEPS = 150


def _summary(train_dir):
    return json.loads((train_dir / "run_summary.json").read_text())


def _launch(args, train_flags, timeout=200, env=None):
    return run_cli(
        ["--timeout_secs=180", *args, "--", *TRAIN_FLAGS, *train_flags],
        module="tf1_train.launch",
        timeout=timeout,
        env=env,
    )


def _losses(stdout, task):
    """global step -> loss from a task's progress lines (launcher output)."""
    pattern = rf"^\[{task}\] step (\d+)/\d+  loss ([\d.]+)"
    return {int(s): float(x) for s, x in re.findall(pattern, stdout, re.M)}


@pytest.fixture(scope="module")
def async_job(tmp_path_factory):
    train_dir = tmp_path_factory.mktemp("async")
    temp = tmp_path_factory.mktemp("async_tmp")  # the tasks' TMPDIR
    out = _launch(
        ["--num_ps=1", "--num_workers=2", "--use_tf_config"],
        [
            "--flagfile=flags/launch.flags",
            f"--train_steps={ASYNC_STEPS}",
            "--display_every=10",
            "--save_checkpoint_steps=50",
            f"--train_dir={train_dir}",
        ],
        env={"TMPDIR": str(temp)},
    )
    return out, train_dir, temp


@pytest.mark.timeout(240)
def test_async_job_reaches_the_target_step_and_the_loss_falls(async_job):
    out, train_dir, _ = async_job
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    summary = _summary(train_dir)
    # Each worker stops once it reads global_step >= train_steps; the other
    # may have applied one more update by then.
    assert ASYNC_STEPS <= summary["global_step"] <= ASYNC_STEPS + 1
    assert summary["cluster"]["num_workers"] == 2 and not summary["cluster"]["sync_replicas"]
    losses = _losses(out.stdout, "worker0")
    first, last = losses[min(losses)], summary["final_loss"]
    assert last < 0.5 * first, losses
    assert summary["test_accuracy"] > 0.8
    # Variables live on the ps, the tower on the chief's own task.
    assert summary["variable_devices"] == {"/job:ps/task:0/device:CPU:0": 6}
    assert summary["tower_devices"] == ["/job:worker/task:0/device:CPU:0"]
    assert summary["placement"]["unexpected"] == []
    assert re.search(r"^\[worker1\] worker1: \d+ local steps", out.stdout, re.M)


@pytest.mark.timeout(240)
def test_parameter_servers_exit_by_themselves_with_status_0(async_job):
    out, _, temp = async_job
    assert "[ps0] ps0: all workers done, exiting" in out.stdout
    for task in ("ps0", "worker0", "worker1"):
        assert f"[launch] {task} exited with status 0" in out.stderr
    # Workers end with os._exit, which runs no atexit hook: AutoGraph's
    # generated modules (4 per worker before errors.hard_exit removed them)
    # would stay in the temp directory after every job.
    assert not list(temp.iterdir())
    # Every line a task printed is prefixed with its name.
    assert all(re.match(r"\[(ps0|worker[01])\] ", line) for line in out.stdout.splitlines())


@pytest.mark.timeout(240)
def test_chief_checkpoint_restores_in_a_single_process_run(async_job):
    _, train_dir, _ = async_job
    cluster = _summary(train_dir)
    checkpoint, step = cluster["checkpoint"], cluster["global_step"]
    assert checkpoint == f"{train_dir}/model.ckpt-{step}"
    out = run_cli([*TRAIN_FLAGS, f"--train_dir={train_dir}", f"--train_steps={step + 20}"])
    assert out.returncode == 0, out.stderr
    resumed = re.search(r"resuming from (\S+) \(global step (\d+)\)", out.stdout)
    assert resumed and resumed.group(1) == checkpoint
    # Async: the other worker's last update may land while the chief saves.
    assert step <= int(resumed.group(2)) <= step + 1
    summary = _summary(train_dir)
    assert summary["resumed_from_step"] == int(resumed.group(2))
    assert summary["global_step"] == step + 20 and "cluster" not in summary


@pytest.mark.timeout(240)
def test_an_fp16_job_keeps_its_loss_scale_on_the_ps_and_the_chief_saves_it(tmp_path):
    """The workers share one scale with the global step; the non-chief
    worker finds it initialised (ready) like every other variable. At the
    flags' learning rate: at 1.0, with momentum and stale async updates, the
    weights outgrew float16 by step 28 in one full-suite run (loss nan on
    both workers), though not in six runs of this test alone."""
    train = ["--flagfile=flags/launch.flags", "--train_steps=40", "--display_every=10",
             "--precision=fp16", f"--train_dir={tmp_path}"]  # fmt: skip
    out = _launch(["--num_ps=1", "--num_workers=2"], train)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert re.search(r"^\[worker1\] worker1: \d+ local steps", out.stdout, re.M)
    summary = _summary(tmp_path)
    assert summary["variable_devices"] == {"/job:ps/task:0/device:CPU:0": 6}  # not the scale
    reader = tf.train.load_checkpoint(summary["checkpoint"])
    scale = float(reader.get_tensor("loss_scale/scale"))
    assert scale <= 2.0**15 and math.log2(scale).is_integer()  # halved, if at all
    assert {"loss_scale/good_steps", "loss_scale/skipped_steps"} <= set(
        reader.get_variable_to_shape_map()
    )


@pytest.mark.timeout(240)
def test_sync_replicas_apply_one_update_of_two_gradients_per_step(tmp_path):
    steps = 60
    flags = [f"--train_steps={steps}", "--display_every=1", "--save_checkpoint_steps=1000"]
    out = _launch(
        ["--num_ps=1", "--num_workers=2"],
        [*flags, "--sync_replicas", f"--train_dir={tmp_path / 'sync'}"],
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    summary = _summary(tmp_path / "sync")
    cluster = summary["cluster"]
    # The chief counted its aggregation loop's updates: one per global step.
    assert summary["global_step"] == steps == cluster["sync_updates"]
    assert cluster["replicas_to_aggregate"] == 2
    others = re.search(r"^\[worker1\] worker1: (\d+) local steps", out.stdout, re.M)
    assert cluster["local_steps"] + int(others.group(1)) >= 2 * steps
    # Both workers' losses of a step are the loss of one batch of 2 x 32;
    # one process with batch 64 sees as many global batches.
    w0, w1 = _losses(out.stdout, "worker0"), _losses(out.stdout, "worker1")
    # Tails of 20 steps: a batch-of-32 loss swings by 0.5 from step to step.
    shared = sorted(set(w0) & set(w1))[-20:]
    sync_tail = statistics.mean((w0[s] + w1[s]) / 2 for s in shared)
    single = run_cli([*TRAIN_FLAGS, *flags, "--batch_size=64", f"--train_dir={tmp_path / 'one'}"])
    assert single.returncode == 0, single.stderr
    single_losses = [float(x) for x in re.findall(r"loss ([\d.]+)", single.stdout)]
    single_tail = statistics.mean(single_losses[-20:])
    assert single_losses[0] > 3 * single_tail  # the baseline did learn
    assert sync_tail < 1.3 * single_tail + 0.05, (sync_tail, single_tail)
    # The loss is the measure; accuracy after 60 steps only has to show learning
    # (it depends on which shard order each worker drew).
    assert summary["test_accuracy"] > 0.6


@pytest.mark.timeout(240)
def test_sync_worker_that_stops_first_does_not_leave_the_chief_blocked(tmp_path):
    # PORTING.md P8: worker1 stops at step 20 while the chief waits for step
    # 21's second gradient. Without the tokens worker1 leaves on its way
    # out, the chief would block until --operation_timeout_secs and fail.
    flags = ["--sync_replicas", "--display_every=5", "--operation_timeout_secs=30"]
    with Job(tmp_path, [*flags, f"--train_dir={tmp_path / 'train'}"]) as job:
        job.start("ps0", "worker0", extra=["--train_steps=40"])
        job.start("worker1", extra=["--train_steps=20"])
        assert job.wait("worker1", timeout=150) == 0, job.text("worker1", "err")
        assert job.wait("worker0", timeout=150) == 0, job.text("worker0", "err")
        assert job.wait("ps0", timeout=60) == 0
    summary = _summary(tmp_path / "train")
    assert summary["global_step"] == 40 == summary["cluster"]["sync_updates"]
    assert "worker1: " in job.text("worker1") and "global step 20" in job.text("worker1")


@pytest.mark.timeout(900)
def test_killing_a_non_chief_worker_lets_the_others_finish(tmp_path):
    # Robust on a starved CPU: only the ps, whose grace period for a worker
    # that never reports is under test, has the short operation timeout; the
    # bound is "the chief keeps stepping" (no output for 60 s fails), not a
    # total budget.
    steps = 1200
    flags = [f"--train_steps={steps}", "--display_every=5", f"--train_dir={tmp_path / 'train'}"]
    with Job(tmp_path, flags) as job:
        job.start("ps0", extra=["--operation_timeout_secs=5"])
        job.start("worker0", "worker1")
        for worker in ("worker0", "worker1"):
            job.wait_for_line(worker, r"step \d+/", timeout=150)
        job.kill("worker1")
        killed_at = max(job.steps("worker0"), default=0)
        assert job.wait_while_stepping("worker0", stall_secs=60) == 0, job.text("worker0", "err")
        assert job.wait("ps0", timeout=60) == 0
        ps_err = job.text("ps0", "err")
        chief_steps = job.steps("worker0")
    assert max(chief_steps) > killed_at  # the chief trained on after the kill
    assert _summary(tmp_path / "train")["global_step"] >= steps
    assert "ps0: worker1 did not report done within 5 s of the chief" in ps_err


@pytest.mark.timeout(240)
def test_killed_chief_restarts_from_its_checkpoint(tmp_path):
    steps = 500
    flags = [f"--train_steps={steps}", "--display_every=50", "--save_checkpoint_steps=100"]
    train_dir = tmp_path / "train"
    with Job(tmp_path, [*flags, f"--train_dir={train_dir}"]) as job:
        job.start("ps0", "worker0", "worker1")
        job.wait_for_line("worker0", r"step [2-4]\d\d/", timeout=150)
        job.kill("worker0")
        job.start("worker0")
        assert job.wait("worker0", timeout=150) == 0, job.text("worker0", "err")
        resumed = re.search(
            r"resuming from \S+model\.ckpt-(\d+) \(global step (\d+)\)", job.text("worker0")
        )
        assert job.wait("worker1", timeout=60) == 0
        assert job.wait("ps0", timeout=60) == 0
    # The checkpoint's step; worker1 kept training, so the live step read
    # right after the restore may be a little further.
    assert resumed, job.text("worker0")
    checkpoint_step, live_step = int(resumed.group(1)), int(resumed.group(2))
    assert 100 <= checkpoint_step <= live_step
    summary = _summary(train_dir)
    assert summary["resumed_from_step"] == live_step
    assert summary["global_step"] >= steps


@pytest.mark.timeout(240)
def test_losing_the_only_ps_fails_every_worker_with_one_line(tmp_path):
    # Not restarted: each worker waits --startup_timeout_secs for it to come
    # back (recovery), then ends with one line and the retryable status.
    # A step caught mid-transfer may instead see no answer at all: then
    # --operation_timeout_secs ends it (a frozen ps, not recovered).
    flags = ["--train_steps=1000000", "--display_every=10", "--startup_timeout_secs=5"]
    flags += ["--operation_timeout_secs=10"]
    with Job(tmp_path, [*flags, f"--train_dir={tmp_path / 'train'}"]) as job:
        job.start("ps0", "worker0", "worker1")
        for worker in ("worker0", "worker1"):
            job.wait_for_line(worker, r"step \d+/", timeout=150)
        job.kill("ps0")
        # The hard timeout is the "no hang" check.
        codes = [job.wait(w, timeout=60) for w in ("worker0", "worker1")]
        errors = [job.text(w, "err").strip().splitlines()[-1] for w in ("worker0", "worker1")]
    assert codes == [EXIT_CLUSTER, EXIT_CLUSTER]
    for i, line in enumerate(errors):
        assert line.startswith(f"error: worker{i}: ")
        lost = "a parameter server was lost during training (" in line
        assert (lost and f"ps0 at {job.ps} not reachable after 5 s" in line) or (
            "no answer within --operation_timeout_secs=10" in line
        ), line


@pytest.mark.timeout(400)
@pytest.mark.parametrize("mode", ["async", "sync"])
def test_a_killed_and_restarted_ps_is_recovered_by_the_running_workers(tmp_path, mode):
    steps, every = 400, 50
    flags = [f"--train_steps={steps}", "--display_every=10", f"--save_checkpoint_steps={every}"]
    flags += ["--startup_timeout_secs=60", "--operation_timeout_secs=20"]
    flags += [f"--train_dir={tmp_path / 'train'}"]
    flags += ["--sync_replicas"] if mode == "sync" else []
    with Job(tmp_path, flags) as job:
        job.start("ps0", "worker0", "worker1")
        job.wait_for_line("worker0", r"step (1[5-9]\d|[2-3]\d\d)/", timeout=200)
        saved = checkpoints.find(str(tmp_path / "train"))[0]
        job.kill("ps0")
        job.start("ps0")  # on the same port, as a scheduler restarts it
        codes = {w: job.wait_while_stepping(w, stall_secs=90) for w in ("worker0", "worker1")}
        assert job.wait("ps0", timeout=60) == 0, job.text("ps0", "err")
        chief, chief_err = job.text("worker0"), job.text("worker0", "err")
    assert codes == {"worker0": 0, "worker1": 0}, chief_err
    assert job.runs == {"ps0": 2, "worker0": 1, "worker1": 1}  # no worker restarted
    # The chief restored a checkpoint no older than the last one it had
    # reported before the kill into the restarted ps.
    resumed = [int(s) for s in re.findall(r"resuming from \S+model\.ckpt-(\d+) ", chief)]
    assert resumed and resumed[-1] >= int(saved.rsplit("-", 1)[1]), chief
    assert "lost the cluster (" in chief_err and "recovery 1)" in chief_err
    summary = _summary(tmp_path / "train")
    assert summary["global_step"] >= steps and summary["stopped_by"] == "train_steps"


@pytest.mark.timeout(240)
def test_workers_wait_for_missing_tasks_with_a_deadline(tmp_path):
    # A session's master would wait forever for a missing ps, and a
    # non-chief worker 30 s per poll for a missing chief (PORTING.md P9).
    flags = ["--train_steps=10", "--startup_timeout_secs=3", f"--train_dir={tmp_path / 'train'}"]
    with Job(tmp_path / "a", flags) as no_ps, Job(tmp_path / "b", flags) as no_chief:
        no_ps.start("worker0")
        no_chief.start("ps0", "worker1")
        assert no_ps.wait("worker0", timeout=120) == EXIT_CLUSTER
        assert no_chief.wait("worker1", timeout=120) == EXIT_CLUSTER
    assert no_ps.text("worker0", "err").strip().splitlines()[-1] == (
        f"error: --ps_hosts: ps0 at {no_ps.ps} not reachable after 3 s; start it, check "
        "the address, or raise --startup_timeout_secs"
    )
    assert "worker1: waiting for the chief" in no_chief.text("worker1")
    assert (
        no_chief.text("worker1", "err")
        .strip()
        .splitlines()[-1]
        .startswith(
            f"error: worker1: the chief (--worker_hosts entry 0, {no_chief.workers[0]}) did "
            "not initialise the model within 3 s"
        )
    )


@pytest.mark.timeout(240)
def test_interrupted_launcher_stops_the_workers_first_so_the_chief_saves(tmp_path):
    # Ctrl-C / SIGTERM to the launcher: one SIGTERM per task, workers before
    # the ps, whose variables the chief's last checkpoint reads.
    train_dir = tmp_path / "train"
    flags = ["--train_steps=1000000", "--display_every=20", f"--train_dir={train_dir}"]
    args = ["--num_ps=1", "--num_workers=2", "--timeout_secs=200", "--", *TRAIN_FLAGS, *flags]
    launcher = subprocess.Popen(
        [sys.executable, "-m", "tf1_train.launch", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        training = set()
        for line in launcher.stdout:
            training |= {w for w in ("worker0", "worker1") if line.startswith(f"[{w}] step ")}
            if len(training) == 2:
                break
        launcher.send_signal(signal.SIGTERM)
        out, err = launcher.communicate(timeout=120)
    finally:
        launcher.kill()
    # 128 + SIGTERM from every worker (saved, resume me) and the launcher.
    assert launcher.returncode == 143, err
    assert "[launch] SIGTERM received; stopping all tasks" in err
    assert "[launch] worker0 exited with status 143" in err
    assert "[launch] worker1 exited with status 143" in err
    summary = _summary(train_dir)
    assert summary["stopped_by"] == "signal"
    assert summary["checkpoint"] == f"{train_dir}/model.ckpt-{summary['global_step']}"
    assert "[worker0] SIGTERM received: stopping after step" in out
