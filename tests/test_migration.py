"""TF1 checkpoints and SavedModels, read by TF2 code in fresh processes."""

import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT


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
