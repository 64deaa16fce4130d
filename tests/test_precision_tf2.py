"""Mixed precision in the TF2 twin (tf1_train/tf2/precision.py) and the
Keras route (mixed policy, LossScaleOptimizer). Eager, in process."""

import dataclasses

import keras
import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import small_config
from tf1_train import config as cfglib
from tf1_train import data
from tf1_train.errors import UserError
from tf1_train.tf2 import keras_fit, train


def _cfg(tmp_path, precision, loss_scale=""):
    cfg = small_config(tmp_path, model="lenet5", towers=2, batch=8, steps=2)
    return dataclasses.replace(cfg, precision=cfglib.PrecisionConfig(precision, loss_scale))


def test_an_overflow_skips_the_update_on_every_replica_and_halves_the_scale(tmp_path):
    cfg = _cfg(tmp_path, "fp16")
    source = data.load_source(cfg.data)
    trainer = train.build(cfg, source, gpus_found=0)
    ls, w = trainer.loss_scale, trainer.model.by_name["conv1/weights"]
    images = tf.constant(source.train_images[:16])
    labels = tf.constant(source.train_labels[:16].astype(np.int32))
    copies = lambda: [v.numpy() for v in trainer.strategy.experimental_local_results(w)]  # noqa: E731
    before = copies()
    assert len(before) == 2  # one copy per replica
    ls.scale.assign(3e38)  # loss * 3e38 overflows float16's gradients
    trainer.steps.train(images, labels)
    for b, a in zip(before, copies()):
        np.testing.assert_array_equal(a, b)
    assert ls.values() == {"loss_scale": pytest.approx(1.5e38, rel=1e-6), "skipped_steps": 1}
    assert int(trainer.optimizer.step.numpy()) == 1  # the step advances
    ls.scale.assign(1024.0)
    trainer.steps.train(images, labels)
    after = copies()
    assert not np.array_equal(after[0], before[0])
    np.testing.assert_array_equal(after[0], after[1])
    assert ls.values()["skipped_steps"] == 1


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
