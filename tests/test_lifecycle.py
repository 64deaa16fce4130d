"""Around the steps: signals, NaN loss, unusable train_dir, eval cadence, traces."""

import json
import os
import re
import signal
import time

import pytest
import tensorflow as tf

from tests.conftest import run_cli, run_clis, small_config, start_cli, wait_for_line
from tf1_train import checkpoints, data, devices, graph, signals, train
from tf1_train.errors import TrainingDiverged, UserError


def _wait_until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def test_first_signal_asks_to_stop_and_a_second_one_is_fatal():
    before = {s: signal.getsignal(s) for s in signals.STOP_SIGNALS}
    with signals.graceful_stop() as stop:
        assert not stop.requested
        os.kill(os.getpid(), signal.SIGTERM)
        assert _wait_until(lambda: stop.requested)
        assert stop.signal_name == "SIGTERM"
        # The operating system's default action is back: a second signal
        # ends the process at once, whatever TensorFlow is doing.
        assert all(signal.getsignal(s) is signal.SIG_DFL for s in signals.STOP_SIGNALS)
    assert {s: signal.getsignal(s) for s in signals.STOP_SIGNALS} == before


LONG = ["--model=mlp", "--train_steps=3000", "--display_every=1", "--save_checkpoint_steps=7"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_saves_checkpoint_and_summary_then_exits_128_plus_the_signal(tmp_path, sig):
    out = tmp_path / "out.txt"
    proc = start_cli(LONG + [f"--train_dir={tmp_path / 'run'}"], out)
    wait_for_line(proc, out, r"^step 20/")
    proc.send_signal(sig)
    # 143 / 130, as a shell reports a death by the signal: schedulers retry it.
    assert proc.wait(timeout=120) == 128 + sig, out.read_text()[-3000:]
    text = out.read_text()
    step = int(re.search(rf"^{sig.name} received: stopping after step (\d+)", text, re.M)[1])
    summary = json.loads((tmp_path / "run" / "run_summary.json").read_text())
    assert summary["stopped_by"] == "signal" and summary["global_step"] == step
    assert checkpoints.find(str(tmp_path / "run"))[0].endswith(f"model.ckpt-{step}")
    assert "Traceback" not in text


def test_a_signal_stops_keras_fit_after_the_step_and_saves_it(tmp_path):
    out, run_dir = tmp_path / "out.txt", tmp_path / "run"
    proc = start_cli([*LONG, "--route=keras", f"--train_dir={run_dir}"], out, "tf1_train.tf2.main")
    wait_for_line(proc, out, r"^step 20/")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 128 + signal.SIGTERM, out.read_text()[-3000:]
    text = out.read_text()
    step = int(re.search(r"^SIGTERM received: stopping after step (\d+)", text, re.M)[1])
    (saved,) = checkpoints.find(str(run_dir))
    assert saved.endswith(f"model.ckpt-{step}") and f"stopped at step {step}: saved" in text
    assert tf.train.load_checkpoint(saved).get_tensor("global_step") == step
    summary = json.loads((run_dir / "run_summary.json").read_text())
    assert summary["stopped_by"] == "signal" and summary["global_step"] == step
    assert summary["test_accuracy"] is None and "Traceback" not in text


def test_second_signal_exits_at_once_and_leaves_every_file_whole(tmp_path):
    run_dir = tmp_path / "run"
    out = tmp_path / "out.txt"
    proc = start_cli(LONG + ["--save_checkpoint_steps=3", f"--train_dir={run_dir}"], out)
    wait_for_line(proc, out, r"^step 20/")
    proc.send_signal(signal.SIGTERM)
    wait_for_line(proc, out, r"^SIGTERM received")
    proc.send_signal(signal.SIGTERM)
    # Killed by the second signal, or done saving (128 + SIGTERM) before it arrived.
    assert proc.wait(timeout=120) in (128 + signal.SIGTERM, -signal.SIGTERM)
    found = checkpoints.find(str(run_dir))
    assert found
    for prefix in found:  # every visible checkpoint reads back, checksums included
        reader = tf.train.load_checkpoint(prefix)
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)
    if (run_dir / "run_summary.json").exists():
        assert json.loads((run_dir / "run_summary.json").read_text())["stopped_by"] == "signal"
    again = run_cli(["--model=mlp", "--train_steps=60", f"--train_dir={run_dir}"])
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming from {found[0]}" in again.stdout


@pytest.mark.parametrize("module", ["tf1_train.main", "tf1_train.tf2.main"])
def test_nan_loss_stops_with_one_line_and_keeps_the_last_good_checkpoint(tmp_path, module):
    out = run_cli(
        [
            "--model=mlp",
            "--learning_rate=1e6",
            "--train_steps=200",
            "--save_checkpoint_steps=1",
            f"--train_dir={tmp_path}",
        ],
        module=module,
    )
    assert out.returncode == 3 and "Traceback" not in out.stderr
    (error,) = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    m = re.match(r"error: loss is (nan|inf|-inf) at step (\d+): .*not saved", error)
    assert m, error
    bad = int(m[2])
    newest = checkpoints.find(str(tmp_path))[0]
    assert newest.endswith(f"model.ckpt-{bad - 1}") and newest in error
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    assert summary["stopped_by"] == "diverged" and summary["global_step"] == bad


def test_the_keras_route_saves_its_weights_for_the_other_paths_and_never_nan(tmp_path):
    """Keras fit saved nothing: the trained weights were lost at exit. Now
    its checkpoint (TF1 names, Keras's momentum as v1's slots, global_step)
    resumes on TF1, and a NaN run exits 3 with nothing saved."""
    base = ["--model=mlp", "--optimizer=momentum", "--train_steps=6"]
    keras_run, nan_run = tmp_path / "keras", tmp_path / "nan"
    fit, nan = run_clis(
        [[*base, "--route=keras", f"--train_dir={keras_run}"],
         [*base, "--route=keras", "--learning_rate=1e30", f"--train_dir={nan_run}"]],
        module="tf1_train.tf2.main",
    )  # fmt: skip
    assert fit.returncode == 0, fit.stderr[-3000:]
    (saved,) = checkpoints.find(str(keras_run))
    assert saved.endswith("model.ckpt-6") and f"saved {saved} " in fit.stdout
    reader = tf.train.load_checkpoint(saved)
    assert reader.get_tensor("global_step") == 6
    assert {"fc1/weights", "fc1/weights/Momentum"} <= set(reader.get_variable_to_shape_map())
    summary = json.loads((keras_run / "run_summary.json").read_text())
    assert summary["checkpoint"] == saved and summary["stopped_by"] == "train_steps"
    more = run_cli([*base[:2], "--train_steps=8", f"--train_dir={keras_run}"])
    assert more.returncode == 0 and f"resuming from {saved} (global step 6)" in more.stdout
    assert nan.returncode == 3 and "Traceback" not in nan.stderr
    (error,) = [line for line in nan.stderr.splitlines() if line.startswith("error: ")]
    assert error.startswith("error: variables hold NaN or Inf after step 6")
    assert "not saved" in error
    assert checkpoints.find(str(nan_run)) == []
    assert json.loads((nan_run / "run_summary.json").read_text())["stopped_by"] == "diverged"


def test_nan_loss_raises_training_diverged_in_the_library(tmp_path):
    cfg = small_config(tmp_path, steps=100, learning_rate=1e6)
    with pytest.raises(TrainingDiverged, match=r"loss is \S+ at step \d+"):
        train.run(cfg, gpus_found=0)


def test_train_dir_under_a_regular_file_fails_at_startup(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("keep me")
    out = run_cli([f"--train_dir={blocker / 'run'}", "--train_steps=2"])
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (error,) = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert f"--train_dir={blocker / 'run'}: cannot be created or written" in error
    assert blocker.read_text() == "keep me"
    assert "step " not in out.stdout  # failed before building or training anything


def test_train_dir_under_proc_is_refused():
    with pytest.raises(UserError, match=r"--train_dir=/proc/tf1_train_run: cannot be created"):
        train.run(small_config("/proc/tf1_train_run"), gpus_found=0)


def test_eval_every_evaluates_during_training_and_at_the_end(tmp_path, capsys):
    result = train.run(small_config(tmp_path, steps=7, eval_every=3), gpus_found=0)
    evals = re.findall(r"^eval at step (\d+): test accuracy (\S+)$", capsys.readouterr().out, re.M)
    assert [int(s) for s, _ in evals] == [3, 6, 7]
    assert float(evals[-1][1]) == pytest.approx(result.summary["test_accuracy"], abs=1e-4)


def test_trace_file_is_chrome_json_naming_both_tower_devices(tmp_path):
    path = tmp_path / "trace.json"
    cfg = small_config(tmp_path / "run", model="lenet5", towers=2, steps=3, trace_file=str(path))
    train.run(cfg, gpus_found=0)
    events = json.loads(path.read_text())["traceEvents"]
    pids = {
        e["pid"]: e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e["name"] == "process_name"
    }
    ops_by_device = {}
    for e in events:
        if e.get("ph") == "X":
            ops_by_device.setdefault(pids[e["pid"]], []).append(e["args"]["name"])
    for i in (0, 1):
        (compute,) = [name for name in ops_by_device if name.endswith(f"device:CPU:{i} Compute")]
        assert any(op.startswith(f"tower_{i}/") for op in ops_by_device[compute])


def test_trace_file_in_a_missing_directory_fails_before_training(tmp_path):
    cfg = small_config(tmp_path / "run", trace_file=str(tmp_path / "nope" / "t.json"))
    with pytest.raises(UserError, match=r"--trace_file=.*: directory .*nope does not exist"):
        train.run(cfg, gpus_found=0)
    assert not (tmp_path / "run" / "run_summary.json").exists()


def _poisoned_checkpoint(tmp_path):
    """A step-2 checkpoint whose momentum slot is all Inf: step 3's loss is
    finite (the slot only enters the update) but the weights are Inf after it."""
    cfg = small_config(tmp_path, steps=4, optimizer="momentum", save_checkpoint_steps=1)
    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan, 0
    )
    slot = g.saved_variables["fc1/weights/Momentum"]
    with g.graph.as_default():
        poison = [slot.assign(tf.fill(slot.shape, float("inf"))), g.global_step.assign(2)]
    with tf.compat.v1.Session(graph=g.graph) as sess:
        sess.run(g.init_op)
        assert sess.run(g.variables_finite)
        sess.run(poison)
        assert not sess.run(g.variables_finite)
        g.saver.save(sess, str(tmp_path / "model.ckpt"), global_step=2)
    return cfg


def test_state_with_inf_variables_is_never_saved_even_if_the_loss_was_finite(tmp_path):
    cfg = _poisoned_checkpoint(tmp_path)
    with pytest.raises(TrainingDiverged) as e:
        train.run(cfg, gpus_found=0)
    assert str(e.value).startswith("variables hold NaN or Inf after step 3: ")
    assert "last good checkpoint: " + str(tmp_path / "model.ckpt-2") in str(e.value)
    assert [p.rsplit("-", 1)[1] for p in checkpoints.find(str(tmp_path))] == ["2"]


def test_the_tf2_path_never_saves_inf_variables_either(tmp_path):
    cfg = _poisoned_checkpoint(tmp_path)
    flags = ["--model=mlp", "--optimizer=momentum", "--batch_size=16", "--train_steps=4",
             "--save_checkpoint_steps=1", f"--train_dir={tmp_path}"]  # fmt: skip
    assert cfg.data.batch_size == 16 and cfg.model == "mlp"
    out = run_cli(flags, module="tf1_train.tf2.main")
    assert out.returncode == 3 and "Traceback" not in out.stderr
    (error,) = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert error.startswith("error: variables hold NaN or Inf after step 3: ")
    assert "last good checkpoint: " + str(tmp_path / "model.ckpt-2") in error
    assert [p.rsplit("-", 1)[1] for p in checkpoints.find(str(tmp_path))] == ["2"]
    assert json.loads((tmp_path / "run_summary.json").read_text())["stopped_by"] == "diverged"
