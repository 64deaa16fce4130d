"""tf1_train.compat.install() and ``python -m tf1_train.compat``: unmodified
legacy tf.layers programs on Keras 3 without tf_keras; the user model made of
these layers shares its variables under reuse and updates its statistics."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "tutorial_style_train.py")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}
v1 = tf.compat.v1


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        timeout=240,
    )


def _values(stdout: str) -> dict:
    pairs = (line.split("=", 1) for line in stdout.splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


CHECK_UNTOUCHED = """
import sys
import tensorflow as tf
import tensorflow.python.layers.normalization as private
import tensorflow.compat.v1 as early
import tf1_train.compat
print("before", type(tf.compat.v1.__dict__["layers"]).__name__,
      "tensorflow.compat.v1.layers" in sys.modules, type(private.normalization).__name__)
tf1_train.compat.install()
import tensorflow.compat.v1 as t1
print("after", t1.layers.__name__, early.layers.__name__, tf.compat.v1.layers.dense.__module__,
      private.BatchNormalization.__module__, tf1_train.compat.is_installed())
tf1_train.compat.install()  # a second call changes nothing
tf1_train.compat.uninstall()
from tensorflow.python.framework import ops
print("uninstalled", type(tf.compat.v1.__dict__["layers"]).__name__,
      "tensorflow.compat.v1.layers" in sys.modules, type(private.normalization).__name__,
      hasattr(ops, "Tensor"), tf1_train.compat.is_installed())
"""


def test_importing_compat_changes_nothing_until_install():
    out = _python(CHECK_UNTOUCHED)
    assert out.returncode == 0, out.stderr[-3000:]
    before, after, uninstalled = out.stdout.splitlines()[-3:]
    assert before == "before KerasLazyLoader False LazyLoader"
    assert uninstalled == "uninstalled KerasLazyLoader False LazyLoader False False"
    ours = "tf1_train.compat.layers"
    assert after.split() == [
        "after",
        ours,
        ours,
        "tf1_train.compat._core",
        "tf1_train.compat._batchnorm",
        "True",
    ]


def test_legacy_script_fails_on_keras3_without_install(tmp_path):
    out = subprocess.run(
        [sys.executable, SCRIPT, "--steps=1"],
        cwd=tmp_path,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode != 0
    assert "is not available with Keras 3" in out.stderr


def test_legacy_script_trains_through_python_m_compat(tmp_path):
    out = run_cli(
        [SCRIPT, "--steps=40", f"--train_dir={tmp_path}"], module="tf1_train.compat", env=QUIET
    )
    assert out.returncode == 0, out.stderr[-3000:]
    values = _values(out.stdout)
    assert values["layers_module"].startswith("tf1_train.compat")
    assert int(values["update_ops"]) == 4  # two batch norms, mean and variance each
    assert float(values["last_loss"]) < 0.5 * float(values["first_loss"])
    moved = {k: float(v) for k, v in values.items() if k.startswith("moved ")}
    assert len(moved) == 4 and min(moved.values()) > 1e-3, moved
    saved = dict(tf.train.list_variables(str(tmp_path)))
    assert saved["bn1/moving_mean"] == [8] and saved["batch_normalization/gamma"] == [16]
    assert saved["conv1/kernel"] == [3, 3, 1, 8] and "global_step" in saved


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "usage: python -m tf1_train.compat"),
        (["no_such_script.py"], "error: no_such_script.py"),
        (["-m"], "error: -m needs a module name"),
        (["-m", "no_such_package.train"], "error: -m no_such_package.train: No module named"),
        (["--v1"], "error: --v1 needs a program to run"),
        (["--gpus_as_cpus=2"], "error: --gpus_as_cpus needs a program to run"),
        (["--v1_shapes"], "error: --v1_shapes needs a program to run"),
        (["--v1_variables"], "error: --v1_variables needs a program to run"),
        (["--v1_control_flow"], "error: --v1_control_flow needs a program to run"),
        (["--v1_seeds"], "error: --v1_seeds needs a program to run"),
        (["--gpus_as_cpus=0", "x.py"], "error: --gpus_as_cpus=0: the number of GPUs to run on"),
        (["--v1", "--gpus_as_cpus=two", "x.py"], "error: --gpus_as_cpus=two: the number of GPUs"),
        (
            ["--gpus_as_cpus", "2", "x.py"],
            "error: --gpus_as_cpus needs its value: --gpus_as_cpus=N",
        ),
        (["--v1_packages=no_such_lib", "x.py"], "error: --v1_packages: no package 'no_such_lib'"),
        (["--v1", "--v1_packages=", "x.py"], "error: --v1_packages: no package ''"),
        (["--v1_packages=json.decoder", "x.py"], "error: --v1_packages: no package 'json.decoder'"),
        (["--v1_packages=json"], "error: --v1_packages needs a program to run"),
        (["--v1_root=/no/such/dir", "x.py"], "error: --v1_root: no such folder '/no/such/dir'"),
        (["--v1", "--v1_root=", "x.py"], "error: --v1_root: no folder given"),
        (["--v1_root=."], "error: --v1_root needs a program to run"),
    ],
)
def test_python_m_compat_bad_input(args, message):
    out = run_cli(args, module="tf1_train.compat", env=QUIET)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [out.stderr.strip()] and message in out.stderr
    assert "Traceback" not in out.stderr


SLIM = """
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
import tf1_train.compat
tf1_train.compat.install()
import tf_slim as slim
x = tf.placeholder(tf.float32, [4, 8, 8, 3])
net = slim.conv2d(x, 6, 3, normalizer_fn=slim.batch_norm,
                  normalizer_params={"is_training": True}, scope="conv1")
slim.batch_norm(net, is_training=True, fused=False, scale=True, scope="bn2")
# 2-D input: tf-slim's own fused batch norm (it read the ops.Tensor TF 2.21 lacks)
slim.fully_connected(tf.reshape(net, [4, -1]), 5, normalizer_fn=slim.batch_norm,
                     normalizer_params={"is_training": True}, scope="fc")
print(" ".join(v.op.name for v in tf.global_variables()))
print(len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)))
"""


def test_tf_slim_batch_norm_builds_after_install():
    # tf-slim 1.1.0 is a test dependency (setup.py), never a run-time one.
    out = _python(SLIM)
    assert out.returncode == 0, out.stderr[-3000:]
    names, updates = out.stdout.splitlines()[-2:]
    assert names.split() == [
        "conv1/weights",
        "conv1/BatchNorm/beta",
        "conv1/BatchNorm/moving_mean",
        "conv1/BatchNorm/moving_variance",
        "bn2/gamma",
        "bn2/beta",
        "bn2/moving_mean",
        "bn2/moving_variance",
        "fc/weights",
        "fc/BatchNorm/beta",
        "fc/BatchNorm/moving_mean",
        "fc/BatchNorm/moving_variance",
    ]
    assert updates == "6"


def _user_model():
    path = os.path.join(ROOT, "tests", "user_models", "legacy_layers_model.py")
    spec = importlib.util.spec_from_file_location("legacy_layers_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build


def _towers(build, images, count):
    """Towers built the way the tower trainer builds them."""
    logits = []
    for i in range(count):
        scope = v1.variable_scope(v1.get_variable_scope(), reuse=i > 0)
        with scope, tf.name_scope(f"tower_{i}"):
            logits.append(build(images, True, 10))
    return logits


def test_user_model_shares_variables_under_reuse():
    build = _user_model()
    with tf.Graph().as_default():
        images = v1.placeholder(tf.float32, [None, 12, 12, 3])
        with v1.variable_scope("model"):
            build(images, True, 10)
        count = len(v1.global_variables())
        with v1.variable_scope("model", reuse=True):
            build(images, False, 10)
        assert len(v1.global_variables()) == count == 16  # 4 per bn, 2 per conv/dense
        _towers(build, images, 2)
        names = {v.op.name for v in v1.global_variables()}
        assert "bn1/moving_variance" in names and len(names) == 32
        for i in range(2):
            ops = v1.get_collection(v1.GraphKeys.UPDATE_OPS, scope=f"tower_{i}/")
            assert len(ops) == 4, [op.name for op in ops]


def test_user_model_trains_and_its_moving_statistics_move():
    build = _user_model()
    with tf.Graph().as_default():
        v1.set_random_seed(1)
        images = tf.constant(np.random.RandomState(0).rand(8, 12, 12, 3), tf.float32)
        labels = tf.constant(np.arange(8) % 10)
        (logits,) = _towers(build, images, 1)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
            train = v1.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
        stats = [v for v in v1.global_variables() if "moving_" in v.name]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            before, first = sess.run([stats, loss])
            for _ in range(10):
                sess.run(train)
            after, last = sess.run([stats, loss])
    assert last < first
    assert all(np.max(np.abs(a - b)) > 1e-4 for a, b in zip(after, before))
