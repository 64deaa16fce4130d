"""Checkpoints and resume: stop with SIGTERM, rerun the same command, end bit-identical.

The CLI runs in subprocesses: --deterministic turns on op determinism for the
whole process, and a signal must reach a real process.
"""

import json
import re
import signal

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import run_cli, small_config, start_cli, wait_for_line
from tf1_train import checkpoints, train

TRAIN = [
    "--model=lenet5",
    "--num_gpus=2",
    "--batch_size=16",
    "--optimizer=momentum",  # slots must resume too
    "--learning_rate=0.05",
    "--lr_schedule=exponential",  # so must the schedule
    "--lr_decay_steps=100",
    "--train_steps=400",
    "--save_checkpoint_steps=150",
    "--display_every=1",
    "--num_warmup_steps=2",
    "--deterministic",
    "--seed=11",
]


def _summary(train_dir):
    return json.loads((train_dir / "run_summary.json").read_text())


def _progress(stdout):
    """global step -> the whole progress line minus throughput and ETA."""
    found = re.findall(r"^step (\d+)/\d+  loss (\S+) .* lr (\S+)", stdout, re.M)
    return {int(step): (loss, lr) for step, loss, lr in found}


def _tensors(prefix):
    reader = tf.train.load_checkpoint(prefix)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def _sigterm_then_rerun(train_dir, out_path, module="tf1_train.main"):
    proc = start_cli(TRAIN + [f"--train_dir={train_dir}"], out_path, module=module)
    wait_for_line(proc, out_path, r"^step 30/400 ")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 128 + signal.SIGTERM, out_path.read_text()[-3000:]
    stopped = _summary(train_dir)
    resumed = run_cli(TRAIN + [f"--train_dir={train_dir}"], module=module)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    return stopped, resumed


@pytest.mark.parametrize("module", ["tf1_train.main", "tf1_train.tf2.main"])
def test_sigterm_then_rerun_ends_bit_identical_to_an_uninterrupted_run(tmp_path, module):
    # The uninterrupted run beside the interrupted one: the machine's two cores.
    log = tmp_path / "whole.out"
    whole = start_cli(TRAIN + [f"--train_dir={tmp_path / 'whole'}"], log, module)
    stopped, resumed = _sigterm_then_rerun(tmp_path / "cut", tmp_path / "cut.out", module)
    assert whole.wait(timeout=240) == 0, log.read_text()[-3000:]

    k = stopped["global_step"]
    assert stopped["stopped_by"] == "signal" and 30 <= k < 400
    assert stopped["checkpoint"].endswith(f"model.ckpt-{k}")
    assert f"resuming from {stopped['checkpoint']} (global step {k})" in resumed.stdout
    final = _summary(tmp_path / "cut")
    assert final["global_step"] == 400 and final["resumed_from_step"] == k
    assert final["stopped_by"] == "train_steps"
    assert repr(final["final_loss"]) == repr(_summary(tmp_path / "whole")["final_loss"])
    # Every step after the restart printed the same loss and learning rate.
    after = _progress(resumed.stdout)
    assert sorted(after) == list(range(k + 1, 401))
    expected = _progress(log.read_text())
    assert after == {s: expected[s] for s in after}
    # All saved tensors, slots and global step included, are bit-identical.
    a = _tensors(str(tmp_path / "whole" / "model.ckpt-400"))
    b = _tensors(str(tmp_path / "cut" / "model.ckpt-400"))
    assert sorted(a) == sorted(b) and len(a) == 10 * 2 + 1
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def _lines(out, prefix):
    return [line for line in out.splitlines() if line.startswith(prefix)]


def _train(train_dir, **kw):
    """The first run of a resume test, in-process (a CLI process would add
    TensorFlow's import): what ``--model=mlp`` with these flags saves."""
    train.run(small_config(train_dir, model="mlp", **kw), gpus_found=0)


def test_corrupt_newest_checkpoint_falls_back_to_the_older_one(tmp_path):
    _train(tmp_path, steps=20, save_checkpoint_steps=10)
    newest = tmp_path / "model.ckpt-20.data-00000-of-00001"
    newest.write_bytes(newest.read_bytes()[:100])  # truncated, as by a full disk

    out = run_cli(["--model=mlp", "--train_steps=25", f"--train_dir={tmp_path}"])
    assert out.returncode == 0, out.stderr[-3000:]
    (warning,) = _lines(out.stdout, "warning: checkpoint")
    assert str(tmp_path / "model.ckpt-20") in warning and "unreadable" in warning
    assert "resuming from the older model.ckpt-10" in warning
    summary = _summary(tmp_path)
    assert summary["resumed_from_step"] == 10 and summary["global_step"] == 25


def test_corrupt_only_checkpoint_is_one_error_line_and_is_kept(tmp_path):
    _train(tmp_path, steps=10)
    data = tmp_path / "model.ckpt-10.data-00000-of-00001"
    flipped = bytearray(data.read_bytes())
    flipped[200:220] = bytes(b ^ 0xFF for b in flipped[200:220])  # bit rot
    data.write_bytes(bytes(flipped))

    out = run_cli(["--model=mlp", "--train_steps=20", f"--train_dir={tmp_path}"])
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (error,) = _lines(out.stderr, "error: ")
    assert f"checkpoint {tmp_path / 'model.ckpt-10'} is unreadable" in error
    assert "no older one" in error
    assert data.read_bytes() == bytes(flipped)  # nothing deleted or rewritten


def test_checkpoint_of_another_model_is_one_line_naming_it(tmp_path):
    _train(tmp_path, steps=3)
    before = sorted(p.name for p in tmp_path.iterdir())
    out = run_cli(["--model=lenet5", "--train_steps=6", f"--train_dir={tmp_path}"])
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (error,) = _lines(out.stderr, "error: ")
    assert f"checkpoint {tmp_path / 'model.ckpt-3'}" in error
    assert "no variable 'conv1/biases'" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no event file added


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_resume_continues_from_the_global_step_in_every_mode(tmp_path, mode):
    kw = dict(model="mlp", towers=2, optimizer="adam", variable_update=mode)
    whole = train.run(small_config(tmp_path / "whole", steps=12, **kw), gpus_found=0)
    first = train.run(small_config(tmp_path / "cut", steps=5, **kw), gpus_found=0)
    rest = train.run(small_config(tmp_path / "cut", steps=12, **kw), gpus_found=0)
    assert first.summary["global_step"] == 5 and len(first.losses) == 5
    assert rest.summary["resumed_from_step"] == 5 and len(rest.losses) == 7
    # In-process runs have no op determinism: equal to float tolerance.
    np.testing.assert_allclose(first.losses + rest.losses, whole.losses, rtol=1e-5)


def test_old_checkpoints_are_pruned_across_restarts(tmp_path):
    for steps in (6, 12, 15):
        cfg = small_config(tmp_path, steps=steps, save_checkpoint_steps=2)
        train.run(cfg, gpus_found=0)
    kept = [p.rsplit("-", 1)[1] for p in checkpoints.find(str(tmp_path))]
    assert kept == ["15", "14", "12"]
    assert len(list(tmp_path.glob("model.ckpt-*.index"))) == 3


def test_a_state_file_left_behind_by_a_kill_catches_up_on_restore(tmp_path):
    """Killed after writing model.ckpt-4 but before updating `checkpoint`:
    the rerun resumes from step 4 and points the state file there at once,
    so tf.train.latest_checkpoint (the TF2 path, other tools) agrees."""
    from tf1_train import data, devices, graph

    cfg = small_config(tmp_path, steps=4, save_checkpoint_steps=2)
    train.run(cfg, gpus_found=0)
    tf.compat.v1.train.update_checkpoint_state(
        str(tmp_path), "model.ckpt-2", all_model_checkpoint_paths=["model.ckpt-2"]
    )
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    g = graph.build(cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed)
    with tf.compat.v1.Session(graph=g.graph) as sess:
        restored = checkpoints.restore_or_init(sess, g, str(tmp_path))
    assert restored.step == 4
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-4")


def test_tf2_path_resumes_from_the_newest_bundle_not_a_lagging_state_file(tmp_path):
    """The TF2 path finds checkpoints by their index files too: a state file a
    kill left at step 2 must not make it repeat steps 3-4."""
    from tf1_train.tf2 import checkpoint as tf2_checkpoint

    for step in (2, 4):
        (tmp_path / f"model.ckpt-{step}.index").write_bytes(b"")
        (tmp_path / f"model.ckpt-{step}.data-00000-of-00001").write_bytes(b"")
    tf.compat.v1.train.update_checkpoint_state(str(tmp_path), "model.ckpt-2")
    assert tf2_checkpoint.latest(str(tmp_path)) == str(tmp_path / "model.ckpt-4")
    assert tf2_checkpoint.latest(str(tmp_path / "absent")) is None


def test_tf2_path_keeps_the_newest_checkpoints_and_removes_leftovers(tmp_path):
    from tf1_train.tf2 import checkpoint as tf2_checkpoint

    (tmp_path / "model.ckpt-1.data-00000-of-00001.tempstate99").write_bytes(b"killed")
    w = tf.Variable([1.0, 2.0])
    for step in (2, 4, 6, 8):
        tf2_checkpoint.save(str(tmp_path), {"w": w}, step)
    assert [p.rsplit("-", 1)[1] for p in checkpoints.find(str(tmp_path))] == ["8", "6", "4"]
    assert not list(tmp_path.glob("model.ckpt-[12].*"))
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [p.rsplit("-", 1)[1] for p in state.all_model_checkpoint_paths] == ["4", "6", "8"]
    assert state.model_checkpoint_path.endswith("model.ckpt-8")
