"""TF1 checkpoints and SavedModels, read by TF2 code in fresh processes."""

import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT, run_cli


def _worker(*args):
    out = subprocess.run(
        [sys.executable, "tests/migration_worker.py", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]


@pytest.fixture(scope="module", params=["mlp", "lenet5"])
def trained(request, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp(request.param)
    _worker("tf1_train", out_dir, request.param, 30)
    return out_dir, request.param


def test_tf1_checkpoint_restores_into_the_tf2_module(trained):
    out_dir, model = trained
    _worker("tf2_restore", out_dir, model)
    tf1 = np.load(out_dir / "tf1_logits.npy")
    tf2 = np.load(out_dir / "tf2_logits.npy")
    assert tf1.shape == (360, 10)
    np.testing.assert_array_equal(tf2.argmax(1), tf1.argmax(1))
    np.testing.assert_allclose(tf2, tf1, rtol=1e-5, atol=1e-5)


def test_exported_saved_model_matches_tf1_in_a_fresh_tf2_process(trained):
    out_dir, model = trained
    _worker("tf1_export", out_dir, model)
    _worker("tf2_saved", out_dir)
    tf1 = np.load(out_dir / "tf1_logits.npy")
    saved = np.load(out_dir / "saved_logits.npy")
    np.testing.assert_allclose(saved, tf1, rtol=0, atol=1e-6)


HALF = 30  # steps of the first run; the second continues to 2 * HALF
CLI = {"tf1": "tf1_train.main", "tf2": "tf1_train.tf2.main"}


def _cli(path, train_dir, steps):
    """``./run.sh``'s command (or its TF2 twin), deterministic, loss every step."""
    args = ["--flagfile=flags/default.flags", f"--train_dir={train_dir}",
            f"--train_steps={steps}", "--deterministic", "--save_summary_steps=1",
            "--num_warmup_steps=1"]  # fmt: skip
    out = run_cli(args, timeout=300, module=CLI[path])
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _losses(train_dir):
    """step -> loss from every event file in train_dir, TF1 or TF2 written
    (TF1 writes simple_value, tf.summary.scalar a scalar tensor)."""
    import tensorflow as tf

    losses = {}
    for path in sorted(train_dir.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                if value.tag == "loss":
                    tensor = tf.make_ndarray(value.tensor) if value.HasField("tensor") else None
                    losses[event.step] = float(value.simple_value if tensor is None else tensor)
    return losses


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """path -> losses of one uninterrupted 2 * HALF step run of that path
    (each path initialises the weights its own way, so each has its own)."""
    runs = {}

    def losses(path):
        if path not in runs:
            train_dir = tmp_path_factory.mktemp(f"{path}_whole")
            _cli(path, train_dir, 2 * HALF)
            runs[path] = _losses(train_dir)
        return runs[path]

    return losses


@pytest.mark.parametrize("first,second", [("tf1", "tf2"), ("tf2", "tf1")])
def test_training_continues_across_paths_where_the_other_left_off(
    uninterrupted, tmp_path, first, second
):
    """A ./run.sh checkpoint (default flags: lenet5, 2 towers, momentum) is
    continued by the other path: its losses are those the first path would
    have had without the interruption."""
    _cli(first, tmp_path, HALF)
    out = _cli(second, tmp_path, 2 * HALF)
    assert f"resuming from {tmp_path}/model.ckpt-{HALF} (global step {HALF})" in out
    got, whole = _losses(tmp_path), uninterrupted(first)
    steps = list(range(HALF + 1, 2 * HALF + 1))
    assert set(steps) <= set(got) and set(steps) <= set(whole)
    want = np.array([whole[s] for s in steps])
    cont = np.array([got[s] for s in steps])
    np.testing.assert_allclose(cont[:10], want[:10], rtol=1e-5)
    np.testing.assert_allclose(cont, want, rtol=1e-3)
    # A fresh model would start near step 1's loss; this one continues a trained one.
    assert want[0] < whole[1] - 0.2
