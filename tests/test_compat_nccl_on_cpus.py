"""NCCL's collectives between the towers ``--gpus_as_cpus`` runs on CPUs
(tf1_train/compat/_nccl_on_cpus.py), and a replicated trainer in the manner
of NVIDIA's StyleGAN ``tflib`` run unmodified through ``python -m
tf1_train.compat --v1 --gpus_as_cpus=2``.

TF 1.x and TensorFlow 2.21 have NCCL kernels for GPUs only: on CPUs a
replicated program stops at its first step ("No OpKernel was registered to
support Op 'NcclAllReduce'"). Under ``--gpus_as_cpus`` the collectives are
sums on the CPUs, every replica gets the same value, and the gradient is
NCCL's; tensors on a GPU still build NCCL's own ops.
"""

import pathlib

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script

from tf1_train.compat import _gpus_as_cpus, _nccl_on_cpus

v1 = tf.compat.v1
SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "nccl_replicas_style.py"
NUMPY = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}


@pytest.fixture
def on_cpus():
    _gpus_as_cpus.install(3)
    yield
    _gpus_as_cpus.uninstall()


def _session(graph):
    return v1.Session(graph=graph, config=v1.ConfigProto(allow_soft_placement=False))


def _towers(values):
    tensors = []
    for i, value in enumerate(values):
        with v1.device(f"/gpu:{i}"):
            tensors.append(tf.constant(value))
    return tensors


@pytest.mark.parametrize("towers", [2, 3])
@pytest.mark.parametrize("reduction", ["sum", "prod", "min", "max"])
def test_each_replica_gets_the_reduction_on_its_own_device(on_cpus, towers, reduction):
    from tensorflow.python.ops import nccl_ops

    values = np.random.RandomState(towers).normal(size=(towers, 3, 2)).astype(np.float32)
    with tf.Graph().as_default() as graph:
        out = getattr(nccl_ops, f"all_{reduction}")(_towers(values))
        with _session(graph) as sess:
            got = sess.run(out)
    assert [t.device for t in out] == [f"/device:CPU:{i}" for i in range(towers)]
    for replica in got:
        np.testing.assert_array_equal(replica, got[0])  # the same value on every device
    np.testing.assert_allclose(got[0], NUMPY[reduction](values, axis=0), rtol=1e-6)


@pytest.mark.parametrize("towers", [2, 3])
def test_the_gradient_of_all_sum_is_the_sum_of_every_copys_gradient(on_cpus, towers):
    from tensorflow.python.ops import nccl_ops

    weights = np.arange(1, towers + 1, dtype=np.float32)
    with tf.Graph().as_default() as graph:
        inputs = _towers(np.ones((towers, 2), np.float32))
        summed = nccl_ops.all_sum(inputs)
        loss = tf.add_n([w * tf.reduce_sum(s) for w, s in zip(weights, summed)])
        grads = tf.gradients(loss, inputs)
        with _session(graph) as sess:
            got = sess.run(grads)
    for g in got:  # each input reaches every copy: d loss / d input_i = sum of the weights
        np.testing.assert_array_equal(g, np.full(2, weights.sum()))


def test_reduce_sum_lands_on_the_current_device_and_broadcast_is_the_tensor(on_cpus):
    from tensorflow.python.ops import nccl_ops

    with tf.Graph().as_default() as graph:
        a, b = _towers([[1.0, 2.0], [3.0, 5.0]])
        with v1.device("/gpu:1"):
            total = nccl_ops.reduce_sum([a, b])
        sent = nccl_ops.broadcast(a)
        with v1.device("/gpu:2"):
            with pytest.raises(ValueError, match="One input tensor must be assigned"):
                nccl_ops.reduce_sum([a, b])
        with _session(graph) as sess:
            got_total, got_sent = sess.run([total, sent])
    assert total.device == "/device:CPU:1" and sent.device == "/device:CPU:0"
    np.testing.assert_array_equal(got_total, [4.0, 7.0])
    np.testing.assert_array_equal(got_sent, [1.0, 2.0])


def test_tensors_on_gpus_still_build_nccls_own_ops():
    # GPU-only (not run here): a tensor a GPU holds goes to NCCL as before.
    from tensorflow.python.ops import nccl_ops

    saved = []
    _nccl_on_cpus.install(saved)  # the collectives' CPU route alone, GPUs left as GPUs
    try:
        with tf.Graph().as_default():
            tensors = []
            for i in range(2):
                with v1.device(f"/gpu:{i}"):
                    tensors.append(tf.constant([1.0]))
            out = nccl_ops.all_sum(tensors)
            sent = nccl_ops.broadcast(tensors[0])
            with v1.device("/gpu:1"):
                total = nccl_ops.reduce_sum(tensors)
    finally:
        for module, name, original in saved:
            setattr(module, name, original)
    assert [t.op.type for t in out] == ["NcclAllReduce"] * 2
    assert [t.device for t in out] == ["/device:GPU:0", "/device:GPU:1"]
    assert (sent.op.type, sent.device) == ("NcclBroadcast", "/device:GPU:0")
    assert (total.op.type, total.device) == ("NcclReduce", "/device:GPU:1")


def test_without_gpus_as_cpus_nccl_has_no_cpu_kernel_as_on_tf1():
    from tensorflow.python.ops import nccl_ops

    with tf.Graph().as_default() as graph:
        tensors = []
        for i in range(2):
            with v1.device(f"/cpu:{i}"):
                tensors.append(tf.constant([1.0]))
        out = nccl_ops.all_sum(tensors)
        config = v1.ConfigProto(device_count={"CPU": 2})
        with v1.Session(graph=graph, config=config) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="NcclAllReduce"):
                sess.run(out)


def test_uninstall_gives_nccl_ops_back():
    from tensorflow.python.ops import nccl_ops

    before = nccl_ops.all_sum
    _gpus_as_cpus.install(2)
    assert nccl_ops.all_sum is not before
    _gpus_as_cpus.uninstall()
    assert nccl_ops.all_sum is before


@pytest.fixture(scope="module")
def replicated_runs(tmp_path_factory):
    """The StyleGAN-style trainer on two replicas and on one (the same
    64-example batches), unmodified, through the compat runner."""
    tmp = tmp_path_factory.mktemp("nccl")
    digits = np.load(pathlib.Path(ROOT) / "tf1_train" / "data" / "digits.npz")
    images = digits["train_images"].reshape(-1, 64)[:512] / 16.0
    np.savez(tmp / "digits.npz", x=images, y=digits["train_labels"][:512])
    return {
        n: run_legacy_script("--v1", tmp, "--gpus_as_cpus=2", SCRIPT, "digits.npz", f"logs{n}", n)
        for n in (2, 1)
    }


def test_a_stylegan_style_replicated_trainer_keeps_its_replicas_equal(replicated_runs):
    two = replicated_runs[2]
    assert float(two["replica_gap"]) == 0.0  # both copies of every weight, bit for bit
    assert float(two["loss_11"]) < float(two["loss_0"]) - 0.15
    assert two["peak_bytes"] == "0"  # memory_stats on a CPU: said once on stderr
    assert two["layout_summary"] == "custom_scalars__config__"


def test_two_replicas_summed_by_nccl_train_as_one_device_on_the_whole_batch(replicated_runs):
    # Measured: the 12 losses agree to 2.4e-7 (the sums' order only).
    two, one = replicated_runs[2], replicated_runs[1]
    losses = [[float(run[f"loss_{i}"]) for i in range(12)] for run in (two, one)]
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-6)
