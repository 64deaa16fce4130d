"""`python -m tf1_train.port check --precision=bf16|fp16`: a port checked in
the precision its TF1 code base trained in.

The TF1 side trains on tf1_train's towers with their cast getter (and fp16's
loss scale); the TF2 side is given images of the type, a Keras port is built
under Keras' mixed policy, and fp16 scales its loss (tf1_train's v1 rule, or
Keras' LossScaleOptimizer with --tf2_optimizer=keras). The loss scale and the
skipped steps are compared after every step.
"""

import subprocess
import sys

import pytest

from tests.conftest import ROOT, warm_side
from tf1_train.port import check

pytestmark = pytest.mark.timeout(600)

MODELS = "tests.port_models"
TWIN = {"model": "tests.user_models.tiny:build", "tf2": "tests.user_models.twins:TinyTwin",
        "towers": 2, "steps": 4, "optimizer": "momentum", "lr": 0.05, "record": "all"}  # fmt: skip
KERAS = {"model": f"{MODELS}:tf1_model", "tf2": f"{MODELS}:keras_port", "steps": 3,
         "optimizer": "momentum", "lr": 0.01, "tf2_optimizer": "keras",
         "record": "all"}  # fmt: skip
CASES = {
    "twin_fp16": {**TWIN, "precision": "fp16"},
    "twin_fp16_overflow": {**TWIN, "precision": "fp16", "loss_scale": "1e30"},
    "twin_bf16": {**TWIN, "precision": "bf16"},
    "builtin_bf16": {"model": "mlp", "towers": 2, "steps": 3, "precision": "bf16"},
    "builtin_fp16": {"model": "mlp", "towers": 2, "steps": 4, "precision": "fp16"},
    "keras_fp16": {**KERAS, "precision": "fp16"},
    "keras_bf16": {**KERAS, "precision": "bf16"},
}


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("port_check_precision")
    check.run_chains(
        [{**c, "id": i} for i, c in CASES.items()], str(out), shards=2, run_side=warm_side
    )
    return str(out)


def _report(out_dir, name, allow=()):
    return check.report({**CASES[name], "id": name}, out_dir, allow=allow)


def _scale_rows(report, name):
    return [r for r in report["rows"] if r["tensor"] == name]


@pytest.mark.parametrize("name", ["twin_fp16", "twin_bf16", "builtin_bf16", "builtin_fp16"])
def test_a_twin_casting_as_the_getter_does_agrees_bit_for_bit(out_dir, name):
    report = _report(out_dir, name)
    assert report["ok"], report["first_divergence"]
    steps = [r for r in report["rows"] if r["phase"] == "step"]
    assert steps and all(r["max_abs"] == 0 for r in steps)
    fp16 = CASES[name]["precision"] == "fp16"
    assert len(_scale_rows(report, "loss_scale/scale")) == (4 if fp16 else 0)


def test_overflowing_steps_are_skipped_alike_and_compared(out_dir):
    """A fixed scale of 1e30 overflows float16 every step: both sides skip
    every update and count it; the weights stay at their initial values."""
    report = _report(out_dir, "twin_fp16_overflow")
    assert report["ok"], report["first_divergence"]
    skipped = _scale_rows(report, "loss_scale/skipped_steps")
    assert [r["step"] for r in skipped] == [1, 2, 3, 4] and all(r["ok"] for r in skipped)
    tf1, tf2, _ = check.load({"id": "twin_fp16_overflow"}, out_dir)
    assert list(tf1["scale:loss_scale/skipped_steps"]) == [1, 2, 3, 4]
    assert (tf1["final:out/w"] == tf1["init:out/w"]).all()


def test_a_keras_port_in_fp16_differs_only_where_it_does_in_fp32(out_dir):
    """Keras' mixed_float16 and LossScaleOptimizer against the TF1 towers in
    float16: everything agrees but Keras 3's biased moving variance."""
    report = _report(out_dir, "keras_fp16")
    first = report["first_divergence"]
    assert (first["phase"], first["step"], first["tensor"]) == ("step", 1, "bn/moving_variance")
    assert [h["id"] for h in report["hints"]] == ["bn_moving_variance"]
    assert all(r["ok"] for r in _scale_rows(report, "loss_scale/scale"))
    assert _report(out_dir, "keras_fp16", allow=["moving_variance"])["ok"]


def test_a_keras_port_in_bf16_is_named_at_the_bias_before_its_batch_norm(out_dir):
    """In bfloat16 the gradient of a bias that feeds a batch norm (zero in
    exact arithmetic) is rounding noise on both sides; where the noise
    differs the hint says so. Where it does not, only Keras 3's biased
    moving variance differs, as in fp16: on a CPU without AVX-512 oneDNN
    has no bfloat16 kernels, both sides ran Eigen's and the bias gradient
    was bit-identical (a Zen 3 host); with oneDNN's (Zen 4) it parted first."""
    report = _report(out_dir, "keras_bf16")
    first = report["first_divergence"]
    bias_rows = [r for r in report["rows"] if r["tensor"] == "conv/bias"]
    hints = [h["id"] for h in report["hints"]]
    if all(r["ok"] for r in bias_rows):
        assert (first["phase"], first["step"], first["tensor"]) == (
            "step", 1, "bn/moving_variance",
        )  # fmt: skip
        assert hints == ["bn_moving_variance"]
    else:
        assert (first["phase"], first["tensor"]) == ("gradient", "conv/bias")
        assert hints == ["bias_before_batch_norm"]
    others = [r for r in report["rows"] if r["tensor"] not in ("conv/bias", "bn/moving_variance")]
    assert all(r["ok"] for r in others)
    assert _report(out_dir, "keras_bf16", allow=["conv/bias", "moving_variance"])["ok"]


def test_an_op_without_a_kernel_for_the_type_is_one_error_line(tmp_path):
    """The CIFAR-10 tutorial's local response normalisation has no bfloat16 CPU kernel."""
    tutorial = "examples.cifar10_tutorial"
    argv = [sys.executable, "-m", "tf1_train.port", "check", f"--tf1={tutorial}.model:inference",
            f"--tf2={tutorial}.model_tf2:Cifar10Tutorial", "--dataset=cifar10",
            "--use_synthetic_data", "--precision=bf16", "--steps=1", "--batch_size=2"]  # fmt: skip
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
    assert out.returncode == 2 and len(errors) == 1, out.stderr[-3000:]
    assert "LRN" in errors[0] and "or use --precision=fp32 or --precision=fp16" in errors[0]
    assert "Traceback" not in out.stderr


def test_the_same_overflow_on_both_sides_agrees_and_one_sided_does_not():
    from tf1_train.port import compare

    inf, nan = float("inf"), float("nan")
    tol = compare.Tolerance()
    assert compare.difference([1.0, inf, nan], [1.0, inf, nan], tol)["excess"] == 0
    assert compare.difference([1.0, 2.0, nan], [1.0, 2.0, 3.0], tol)["excess"] == inf
    assert compare.difference([1.0, -inf], [1.0, inf], tol)["excess"] == inf
    assert compare.difference([1.0, inf], [1.5, inf], tol)["max_abs"] == 0.5
