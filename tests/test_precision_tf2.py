"""Mixed precision in the TF2 twin (tf1_train/tf2/precision.py) and the
Keras route (mixed policy, LossScaleOptimizer). Eager, in process."""

import json

import keras
import pytest

from tests.conftest import run_cli
from tf1_train import config as cfglib
from tf1_train.errors import UserError
from tf1_train.tf2 import keras_fit

WORKER = "tests.precision_worker"  # forked from the warm server (tests/warm_cli.py)


def test_an_overflow_skips_the_update_on_every_replica_and_halves_the_scale(tmp_path):
    """In a process of its own (forked from the warm server, which imported
    TensorFlow but initialised nothing): two replicas need virtual CPU
    devices set up before TensorFlow initialises (tests/precision_worker.py
    overflow)."""
    out = run_cli(["overflow", "lenet5", "fp16", str(tmp_path)], 180, module=WORKER)
    assert out.returncode == 0, out.stderr[-3000:]
    with open(tmp_path / "overflow.json") as f:
        got = json.load(f)
    assert got["copies"] == 2  # one per replica
    assert got["unchanged_after_overflow"] == [True, True]
    assert got["scale"] == pytest.approx(1.5e38, rel=1e-6) and got["skipped"] == 1
    assert got["step"] == 1  # the step advances
    assert got["changed_after"] and got["copies_equal_after"] and got["skipped_after"] == 1


@pytest.mark.parametrize("precision, compute", [("bf16", "bfloat16"), ("fp16", "float16")])
def test_keras_route_computes_in_the_type_with_float32_variables_and_logits(precision, compute):
    pc = cfglib.PrecisionConfig(precision)
    with keras_fit.dtype_policy(precision):
        model = keras_fit.build_model("lenet5", (8, 8, 1), 10, 16.0)
        keras_fit.compile_model(model, cfglib.OptimizerConfig(), 1, pc)
    assert keras.config.dtype_policy().name == "float32"  # restored
    conv = model.get_layer("conv1")
    assert conv.compute_dtype == compute and conv.kernel.dtype == "float32"
    assert model.output.dtype == "float32"
    is_scaled = isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer)
    assert is_scaled == (precision == "fp16")


def test_keras_route_refuses_a_fixed_loss_scale():
    with pytest.raises(UserError, match="^--loss_scale=128"):
        keras_fit.loss_scaled(keras.optimizers.SGD(), cfglib.PrecisionConfig("fp16", "128"))
