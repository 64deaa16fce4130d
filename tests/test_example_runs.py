"""The CIFAR-10 tutorial example (examples/cifar10_tutorial/), run as a user
runs it: its flagfile through the public entry points, in fresh processes.

The flagfile's run is shortened (batch 8, a few steps); everything else is
the example's: its model, its 'losses' collection, its preprocess, its
staircase decay and weight averages.
"""

import concurrent.futures
import json
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator as ea

from tests.conftest import ROOT, run_cli
from tests.data_files import write_cifar10

FLAGFILE = "--flagfile=examples/cifar10_tutorial/train.flags"
SHORT = ["--batch_size=8", "--display_every=1", "--num_warmup_steps=1", "--save_checkpoint_steps=2"]
MODEL = "examples.cifar10_tutorial.model:inference"
TWIN = "examples.cifar10_tutorial.model_tf2:Cifar10Tutorial"

pytestmark = pytest.mark.timeout(400)


def _run(args, module="tf1_train.main"):
    out = run_cli([FLAGFILE, *SHORT, *args], module=module)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    return out


def _summary(train_dir):
    return json.loads((train_dir / "run_summary.json").read_text())


def _python(code, *args):
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]


EXPORT = """
import sys, numpy as np, tensorflow as tf
from tf1_train import export, models
train_dir, out = sys.argv[1], sys.argv[2]
export.export_saved_model(tf.train.latest_checkpoint(train_dir), sys.argv[3],
                          (24, 24, 3), 10, out + "/saved_model")
with tf.Graph().as_default():
    x = tf.constant(np.random.RandomState(0).randn(5, 24, 24, 3).astype(np.float32))
    logits = models.get_model(sys.argv[3])(x, False, 10)
    with tf.compat.v1.Session() as sess:
        tf.compat.v1.train.Saver().restore(sess, tf.train.latest_checkpoint(train_dir))
        np.save(out + "/tf1.npy", sess.run(logits))
"""
LOAD = """
import sys, numpy as np, tensorflow as tf
out = sys.argv[1]
x = np.random.RandomState(0).randn(5, 24, 24, 3).astype(np.float32)
loaded = tf.saved_model.load(out + "/saved_model")
np.save(out + "/tf2.npy", loaded.signatures["serving_default"](images=tf.constant(x))["logits"])
"""


def test_the_tutorial_trains_resumes_and_exports_for_tf2(tmp_path):
    # Two processes at a time (2 cores, each mostly one thread while it
    # imports and builds): the runs that need no other beside the chain that does.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        others = pool.submit(_replicated_files_and_twin, tmp_path)
        _train_resume_and_export(tmp_path)
        others.result()


def _train_resume_and_export(tmp_path):
    ps = tmp_path / "ps"
    first = _run(["--train_steps=2", f"--train_dir={ps}"])
    assert "loss per tower: softmax cross-entropy + 2 'losses' collection term(s)" in first.stdout
    assert "tower 1 -> /device:CPU:1" in first.stdout
    # the tutorial's activation summaries: 5 layers x (histogram, sparsity), tower 0's written
    assert "model summaries: 10 op(s) in tower 0's SUMMARIES collection, written" in first.stdout
    resumed = _run(["--train_steps=4", f"--train_dir={ps}"])
    assert "resuming from" in resumed.stdout and "(global step 2)" in resumed.stdout
    assert _summary(ps)["global_step"] == 4 and _summary(ps)["model"] == MODEL
    _python(EXPORT, ps, tmp_path, MODEL)
    _python(LOAD, tmp_path)
    np.testing.assert_allclose(
        np.load(tmp_path / "tf2.npy"), np.load(tmp_path / "tf1.npy"), atol=1e-6
    )


def _replicated_files_and_twin(tmp_path):
    replicated = tmp_path / "replicated"
    _run(["--train_steps=2", "--variable_update=replicated", f"--train_dir={replicated}"])
    assert _summary(replicated)["variable_update"] == "replicated"

    data = tmp_path / "cifar"
    data.mkdir()
    write_cifar10(data, per_batch=8)
    files = tmp_path / "files"
    _run(
        ["--train_steps=2", "--nouse_synthetic_data", f"--data_dir={data}", f"--train_dir={files}"]
    )
    assert _summary(files)["dataset"] == "cifar10"

    twin = tmp_path / "tf2"
    args = ["--train_steps=2", "--save_summary_steps=1", f"--tf2_model={TWIN}"]
    _run([*args, f"--train_dir={twin}"], "tf1_train.tf2.main")
    assert _summary(twin)["global_step"] == 2
    # the twin's own tf.summary calls, recorded at each due step from the first replica
    acc = ea.EventAccumulator(str(twin), size_guidance={ea.TENSORS: 0}).Reload()
    assert [e.step for e in acc.Tensors("conv1/sparsity")] == [1, 2]
    for event in acc.Tensors("conv1/activations"):
        buckets = tf.make_ndarray(event.tensor_proto)  # (left, right, count) rows
        assert buckets[:, 2].sum() == 8 * 24 * 24 * 64  # one replica's batch of 8


@pytest.mark.parametrize("sync", [False, True])
def test_the_tutorial_runs_as_a_ps_worker_job(tmp_path, sync):
    args = ["--num_ps=1", "--num_workers=2", "--timeout_secs=300", "--", FLAGFILE, *SHORT]
    args += ["--num_gpus=1", "--train_steps=4", f"--train_dir={tmp_path}"]
    out = run_cli(
        args + (["--sync_replicas"] if sync else []), module="tf1_train.launch", timeout=360
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    summary = _summary(tmp_path)
    assert summary["global_step"] >= 4 and summary["cluster"]["sync_replicas"] == sync
    assert summary["model"] == MODEL
