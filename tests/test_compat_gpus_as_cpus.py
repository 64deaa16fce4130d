"""``python -m tf1_train.compat --gpus_as_cpus=N``: a multi-GPU TF1 program's
``/gpu:i`` towers on N virtual CPU devices, so its tower logic runs on a
machine without GPUs (as on TF1, it otherwise stops at the first session run:
"Cannot assign a device"); the program's own session config kept."""

import os
import pathlib
import subprocess
import sys

import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script
from data_files import write_digits_as_mnist

from tf1_train.compat import _gpus_as_cpus

SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "multigpu_towers_style.py"


@pytest.mark.parametrize(
    "asked, placed",
    [
        ("/gpu:1", "/device:CPU:1"),
        ("/device:GPU:0", "/device:CPU:0"),
        ("/job:worker/task:1/gpu:0", "/job:worker/task:1/device:CPU:0"),
        ("/cpu:0", "/cpu:0"),
        ("/job:ps/task:0", "/job:ps/task:0"),
        ("", ""),
        (None, None),
    ],
)
def test_a_gpu_becomes_the_cpu_of_its_index(asked, placed):
    assert _gpus_as_cpus.gpu_to_cpu(asked) == placed


@pytest.fixture
def gpus_as_cpus():
    line = _gpus_as_cpus.install(2)
    yield line
    _gpus_as_cpus.uninstall()


def test_device_functions_and_sessions_follow(gpus_as_cpus):
    assert "--gpus_as_cpus=2" in gpus_as_cpus
    setter = tf.compat.v1.train.replica_device_setter(
        worker_device="/job:localhost/replica:0/task:0/gpu:1", ps_device="/cpu:0", ps_tasks=1
    )
    with tf.Graph().as_default() as graph:
        with tf.compat.v1.device(setter):
            var = tf.compat.v1.get_variable("w", [2])
            total = tf.reduce_sum(var * 2.0)
        with tf.compat.v1.device("/gpu:0"), tf.compat.v1.device(lambda op: "/gpu:1"):
            other = tf.identity(total)
        config = tf.compat.v1.ConfigProto(allow_soft_placement=False, device_count={"CPU": 3})
        with tf.compat.v1.Session(graph=graph, config=config) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(other)  # CPU:1 exists: the program's config had 3 CPUs, kept
            names = [d.name for d in sess.list_devices()]
    assert var.device == "/device:CPU:0"  # the setter's ps_device
    assert total.device == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert other.device == "/device:CPU:1"
    assert sum(n.endswith(("CPU:0", "CPU:1", "CPU:2")) for n in names) == 3


def test_uninstall_puts_tensorflow_back():
    _gpus_as_cpus.install(2)
    _gpus_as_cpus.uninstall()
    with tf.Graph().as_default(), tf.compat.v1.device("/gpu:1"):
        assert tf.constant(1.0).device == "/device:GPU:1"


def test_a_multi_gpu_program_trains_its_towers_on_cpus(tmp_path):
    # Measured: 2.36 -> 0.06 in 120 steps of 2 towers x 32, 0.95 held out;
    # the first step's ops ran on CPU:0 and CPU:1.
    write_digits_as_mnist(str(tmp_path))
    values = run_legacy_script("--v1", tmp_path, "--gpus_as_cpus=2", str(SCRIPT), str(tmp_path))
    assert values["devices"] == "device:CPU:0,device:CPU:1"
    assert values["variables_on"] == "/device:CPU:0"  # assign_to_device's ps_device
    assert values["tower_1_ops_on"].split(",") == ["", "/device:CPU:1"]  # reads: by the variable
    assert float(values["last_loss"]) < float(values["first_loss"]) / 10
    assert float(values["test_accuracy"]) > 0.85


def test_without_it_the_program_stops_as_on_a_tf1_machine_without_gpus(tmp_path):
    write_digits_as_mnist(str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "tf1_train.compat", "--v1", str(SCRIPT), str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 1 and "first_loss" not in out.stdout
    assert "Cannot assign a device for operation" in out.stderr and "GPU:0" in out.stderr
