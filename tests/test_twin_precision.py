"""A user's TF2 twin (--tf2_model) under --precision=bf16|fp16, driven
through both entry points as a user would.

The twin is given images of the run's type and casts each of its float32
weights to that type as it reads it (tests/user_models/twins.py,
examples/cifar10_tutorial/model_tf2.py); the TF1 model gets the same casts
from tf1_train's custom getter. From the same starting checkpoint both
paths then train the same numbers, fp16's loss scale and skipped steps
included (the TF2 replicas scale their loss by the replica count, so each
replica's float16 gradients are a TF1 tower's).
"""

import json

import pytest
import tensorflow as tf

from tests.conftest import load_random_weights, run_clis
from tests.user_models import tiny

v1 = tf.compat.v1
MODEL = "tests.user_models.tiny:build"
TWINS = "tests.user_models.twins"
TUTORIAL = "examples.cifar10_tutorial"
MAINS = ("tf1_train.main", "tf1_train.tf2.main")


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    """A checkpoint of tiny's variables with large random values (a loss
    near 30: at fp16's initial scale its first gradients overflow)."""
    out = tmp_path_factory.mktemp("start")
    with tf.Graph().as_default():
        tiny.build(tf.zeros([2, 8, 8, 1]), True, 10)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            load_random_weights(sess, 5)
            return v1.train.Saver().save(sess, str(out / "model.ckpt"), global_step=0)


def _both(tmp_path, args, twin=""):
    """Runs TF1 and the TF2 twin on ``args``: (stdout, run_summary) of each."""
    runs = [[*args, f"--train_dir={tmp_path / m}"] for m in MAINS]
    outs = run_clis(runs, module=list(MAINS))
    for out in outs:
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    summaries = [json.loads((tmp_path / m / "run_summary.json").read_text()) for m in MAINS]
    return [o.stdout for o in outs], summaries


def _losses(stdout):
    return [line.split()[3] for line in stdout.splitlines() if line.startswith("step ")]


@pytest.mark.parametrize(
    "precision, twin", [("bf16", "TinyTwin"), ("fp16", "TinyTwin"), ("fp16", "HalfTinyTwin")]
)
def test_a_twin_trains_the_tf1_models_numbers_in_half_precision(tmp_path, start, precision, twin):
    args = [f"--model={MODEL}", f"--tf2_model={TWINS}:{twin}", f"--init_checkpoint={start}",
            f"--precision={precision}", "--num_gpus=2", "--seed=3", "--train_steps=10",
            "--display_every=2", "--batch_size=8", "--learning_rate=0.05",
            "--optimizer=momentum"]  # fmt: skip
    (out1, out2), (tf1, tf2) = _both(tmp_path, args)
    assert len(_losses(out1)) == 5 and _losses(out2) == _losses(out1)
    for key in ("final_loss", "test_accuracy"):
        assert tf2[key] == tf1[key], key
    if precision == "fp16":  # the same steps skipped, the same scale at the end
        assert tf1["skipped_steps"] >= 1
        for key in ("loss_scale", "skipped_steps"):
            assert tf2[key] == tf1[key], key
    assert "note:" not in out2


def test_the_tutorials_model_and_twin_train_the_same_numbers_in_fp16(tmp_path):
    """The CIFAR-10 tutorial's own model (LRN, its 'losses' terms, summaries,
    weight averages) against its twin, from one TF1 run's checkpoint. Not
    bit-identical: the TF1 model computes its weight-decay terms from the
    float16 casts its get_variable hands it, and sums each weight's two
    gradients (its layer's and its term's) in float16 before the cast back
    (the start-up line says so); the twin computes both from its float32
    variables. Measured: the loss 0.7e-4 to 9.2e-4 relative apart over 4
    steps (Zen 5, 2026-12-01). Eigen's kernels (--onednn=off): on a CPU
    with AVX512-FP16 oneDNN runs float16 convolutions in its reference
    kernels, and this test took 55 s there against 15 s (Xeon, 2026-12-05);
    what it compares does not depend on the kernel library."""
    args = ["--flagfile=examples/cifar10_tutorial/train.flags", "--batch_size=4",
            "--display_every=1", "--num_warmup_steps=1", "--save_summary_steps=2",
            f"--tf2_model={TUTORIAL}.model_tf2:Cifar10Tutorial", "--precision=fp16",
            "--onednn=off"]  # fmt: skip
    (first,) = run_clis([[*args, "--train_steps=1", f"--train_dir={tmp_path / 'first'}"]])
    assert first.returncode == 0, first.stderr[-3000:]
    ckpt = tf.train.latest_checkpoint(str(tmp_path / "first"))
    again = [*args, "--train_steps=4", f"--init_checkpoint={ckpt}"]
    (out1, out2), (tf1, tf2) = _both(tmp_path, again)
    said = "(weight_loss); the model computes 2 of these terms in float16 (from the weights' casts)"
    assert said in out1
    losses = [float(x) for x in _losses(out1)]
    assert len(losses) == 4
    assert [float(x) for x in _losses(out2)] == pytest.approx(losses, rel=3e-3)
    assert tf2["final_loss"] == pytest.approx(tf1["final_loss"], rel=3e-3)
    assert tf2["test_accuracy"] == pytest.approx(tf1["test_accuracy"], abs=0.02)
