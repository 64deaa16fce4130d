"""``--v1_seeds`` runs TF 1.x's pip kernels (Eigen's), not oneDNN's, unless the
environment says which (tf1_train/compat/__main__.py, _eigen_for_v1_seeds): the
TensorFlow cookbook's graph-seeded Deming regression drew TF 1.15.5's weights
and then left its path at step 3, where a 50-term matmul of its gradient
rounded one ulp apart under oneDNN."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

PROGRAM = """import os
import numpy as np
import tensorflow as tf
rng = np.random.RandomState(0)
x = rng.rand(50, 1).astype(np.float32) * 2.5
g = (rng.rand(50, 1).astype(np.float32) - 0.5) / 50
a, b = tf.placeholder(tf.float32, [None, 1]), tf.placeholder(tf.float32, [None, 1])
with tf.Session() as sess:
    print(os.environ.get("TF_ENABLE_ONEDNN_OPTS"), sess.run(tf.matmul(a, b, True), {a: x, b: g})
          .item().hex())
"""
TF_1_15_5 = "-0x1.22056a0000000p-3"  # what TensorFlow 1.15.5 printed for this program


def _run(tmp_path, onednn):  # a fresh interpreter: TensorFlow reads the setting as it loads
    (tmp_path / "prog.py").write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "TF_ENABLE_ONEDNN_OPTS"}
    env.update({"TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": ROOT})
    if onednn is not None:
        env["TF_ENABLE_ONEDNN_OPTS"] = onednn
    args = [sys.executable, "-m", "tf1_train.compat", "--v1", "--v1_seeds", "prog.py"]
    out = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def test_v1_seeds_computes_with_tf_1_xs_kernels_and_says_so(tmp_path):
    out = _run(tmp_path, None)
    assert out.stdout.split() == ["0", TF_1_15_5]
    notes = [line for line in out.stderr.splitlines() if line.startswith("note: --v1_seeds")]
    assert len(notes) == 1 and "TF_ENABLE_ONEDNN_OPTS=1" in notes[0]


@pytest.mark.parametrize(
    "argv, environ, eigen",
    [
        (["--v1", "--v1_seeds", "prog.py"], {}, "0"),
        (["--v1", "--v1_seeds", "prog.py"], {"TF_ENABLE_ONEDNN_OPTS": "1"}, "1"),  # theirs
        (["--v1_seeds", "prog.py"], {"TF_ENABLE_ONEDNN_OPTS": "0"}, "0"),  # no note: theirs
        (["--v1", "prog.py", "--v1_seeds"], {}, None),  # the program's own argument
    ],
)
def test_only_the_runners_own_v1_seeds_decides_and_only_when_nothing_else_did(
    monkeypatch, argv, environ, eigen
):
    from tf1_train.compat import __main__ as runner

    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    assert runner._eigen_for_v1_seeds(argv) == (eigen is not None and not environ)
    assert os.environ.get("TF_ENABLE_ONEDNN_OPTS") == eigen
