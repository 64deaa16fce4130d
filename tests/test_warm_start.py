"""--init_checkpoint / --init_exclude: a fresh run starts from the weights of
a checkpoint a user's own TF1 script wrote (tests/user_models/tiny.py's
model, trained with a v1 Saver, momentum slots and global step 123)."""

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import load_random_weights, run_cli, small_config
from tests.user_models import tiny
from tf1_train import train

v1 = tf.compat.v1
MODEL = "tests.user_models.tiny:build"
NAMES = ("hidden/w", "hidden/b", "out/w", "out/b")


@pytest.fixture(scope="module")
def legacy_checkpoint(tmp_path_factory):
    """(prefix, name -> value) of a checkpoint written the TF1 way."""
    out = tmp_path_factory.mktemp("legacy")
    with tf.Graph().as_default():
        logits = tiny.build(tf.zeros([2, 8, 8, 1]), True, 10)
        step = v1.train.get_or_create_global_step()
        v1.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(logits), global_step=step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = load_random_weights(sess, 5)
            step.load(123, sess)
            prefix = v1.train.Saver().save(sess, str(out / "model.ckpt"), global_step=123)
    return prefix, values


def _final(train_dir):
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(train_dir)))
    return {n: reader.get_tensor(n) for n in (*NAMES, "global_step")}


@pytest.mark.parametrize("mode, towers", [("parameter_server", 1), ("replicated", 2)])
def test_a_fresh_run_starts_from_the_checkpoints_weights(tmp_path, capsys, legacy_checkpoint,
                                                         mode, towers):  # fmt: skip
    prefix, values = legacy_checkpoint
    cfg = small_config(
        tmp_path, MODEL, towers=towers, steps=1, learning_rate=1e-30, variable_update=mode,
        init_checkpoint=str(prefix),
    )  # fmt: skip
    train.run(cfg, gpus_found=0)
    out = capsys.readouterr().out
    assert f"init: 4 model variable(s) from {prefix}; global step and optimizer" in out
    final = _final(tmp_path)
    for name in NAMES:  # lr 1e-30: the step moved no weight by an ulp
        np.testing.assert_array_equal(final[name], values[name])
    assert final["global_step"] == 1  # the step starts fresh, not at 123


def test_excluded_variables_keep_their_initial_values(tmp_path, legacy_checkpoint):
    prefix, values = legacy_checkpoint
    common = dict(steps=1, learning_rate=1e-30)
    train.run(small_config(tmp_path / "fresh", MODEL, **common), gpus_found=0)
    cfg = small_config(
        tmp_path / "warm", MODEL, init_checkpoint=prefix, init_exclude="out/", **common
    )
    train.run(cfg, gpus_found=0)
    fresh, warm = _final(tmp_path / "fresh"), _final(tmp_path / "warm")
    for name in ("hidden/w", "hidden/b"):
        np.testing.assert_array_equal(warm[name], values[name])
    # as a run without --init_checkpoint starts them: the same initial kernel,
    # the bias at zero (plus the 1e-31 step a zero bias can take), not the checkpoint's
    np.testing.assert_array_equal(warm["out/w"], fresh["out/w"])
    assert not np.array_equal(warm["out/w"], values["out/w"])
    assert np.abs(warm["out/b"]).max() < 1e-20 < np.abs(values["out/b"]).max()


def test_weight_averages_start_from_the_loaded_weights(tmp_path, legacy_checkpoint):
    prefix, values = legacy_checkpoint
    cfg = small_config(
        tmp_path, MODEL, steps=1, learning_rate=1e-30, moving_average_decay=0.9,
        init_checkpoint=prefix,
    )  # fmt: skip
    train.run(cfg, gpus_found=0)
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(tmp_path)))
    for name in NAMES:
        np.testing.assert_allclose(
            reader.get_tensor(f"{name}/ExponentialMovingAverage"), values[name], rtol=1e-6
        )


def test_a_resumed_run_says_the_flag_is_not_used(tmp_path, capsys, legacy_checkpoint):
    prefix, _ = legacy_checkpoint
    train.run(small_config(tmp_path, MODEL, steps=1), gpus_found=0)
    capsys.readouterr()
    train.run(small_config(tmp_path, MODEL, steps=2, init_checkpoint=prefix), gpus_found=0)
    out = capsys.readouterr().out
    assert "--init_checkpoint not used: train_dir holds a checkpoint to resume" in out
    assert "init: " not in out


def test_the_tf2_path_starts_from_the_same_weights(tmp_path, legacy_checkpoint):
    prefix, values = legacy_checkpoint
    args = [f"--model={MODEL}", "--train_steps=1", "--learning_rate=1e-30",
            f"--train_dir={tmp_path}", f"--init_checkpoint={prefix}",
            "--tf2_model=tests.user_models.twins:TinyTwin"]  # fmt: skip
    out = run_cli(args, module="tf1_train.tf2.main")
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"init: 4 model variable(s) from {prefix}" in out.stdout
    final = _final(tmp_path)
    for name in NAMES:
        np.testing.assert_array_equal(final[name], values[name])


def test_the_chief_of_a_ps_worker_job_starts_from_the_checkpoint(tmp_path, legacy_checkpoint):
    prefix, values = legacy_checkpoint
    args = ["--num_ps=1", "--num_workers=2", "--timeout_secs=240", "--", f"--model={MODEL}",
            "--train_steps=2", "--learning_rate=1e-30", f"--train_dir={tmp_path}",
            f"--init_checkpoint={prefix}"]  # fmt: skip
    out = run_cli(args, module="tf1_train.launch", timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert f"[worker0] init: 4 model variable(s) from {prefix}" in out.stdout
    final = _final(tmp_path)
    for name in NAMES:
        np.testing.assert_array_equal(final[name], values[name])


def test_an_fp16_run_loads_the_weights_and_starts_its_own_loss_scale(
    tmp_path, capsys, legacy_checkpoint
):
    """The loss scale is not a model weight: the checkpoint need not hold it."""
    prefix, values = legacy_checkpoint
    cfg = small_config(
        tmp_path, MODEL, steps=1, learning_rate=1e-30, precision="fp16",
        init_checkpoint=str(prefix),
    )  # fmt: skip
    summary = train.run(cfg, gpus_found=0).summary
    out = capsys.readouterr().out
    assert f"init: 4 model variable(s) from {prefix}; global step" in out
    assert "loss scale:" not in out  # nothing to resume, nothing to report
    final = _final(tmp_path)
    for name in NAMES:
        np.testing.assert_array_equal(final[name], values[name])
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(tmp_path)))
    assert reader.get_tensor("loss_scale/scale") == summary["loss_scale"]
