"""What TensorFlow 2.21 and Keras 3 do with legacy mixed-precision code: the facts
behind the scanner's amp-*, v1-loss-scale and keras2-* rules (docs/PORTING.md)."""

import mmap
import pathlib
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.timeout(300)


def _tensorflow_files():
    root = pathlib.Path(tf.__file__).resolve().parent
    for path in root.rglob("*"):
        if path.is_file() and (path.suffix == ".py" or ".so" in path.name):
            yield path


def _files_holding(*needles: bytes):
    """needle -> the names of the installed TensorFlow's files holding it
    (one pass over the files for all the needles: over a gigabyte to read)."""
    found = {n: [] for n in needles}
    for path in _tensorflow_files():
        with open(path, "rb") as f:
            if path.stat().st_size == 0:
                continue
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                for needle in needles:
                    if m.find(needle) >= 0:
                        found[needle].append(path.name)
    return found


def test_tensorflow_2_21_never_reads_tf_enable_auto_mixed_precision():
    # The variable NVIDIA's TF1 containers read is in no file of the installed
    # TensorFlow, while the Grappler pass's own debug variable is.
    debug = b"TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_LEVEL"
    nvidia = b"TF_ENABLE_AUTO_MIXED_PRECISION"
    found = _files_holding(debug, nvidia)
    assert found[debug]
    assert found[nvidia] == []


def test_keras_2_mixed_precision_api_is_gone_from_keras_3():
    assert not hasattr(tf.keras.mixed_precision, "experimental")
    assert not hasattr(tf, "mixed_precision")  # TF 2.1-2.3's tf.mixed_precision.experimental
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1))
    assert not hasattr(opt, "get_scaled_loss") and not hasattr(opt, "get_unscaled_gradients")
    with pytest.raises(ValueError, match="dynamic=False"):
        keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1), dynamic=False)


def test_keras_3_loss_scale_optimizer_unscales_and_skips_by_itself():
    """scale_loss + apply_gradients: the update of the unscaled gradient; an
    infinite gradient leaves the weights and halves the scale."""
    v = tf.Variable([1.0, 2.0])
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1))
    with tf.GradientTape() as tape:
        scaled = opt.scale_loss(tf.reduce_sum(v * v))
    (grad,) = tape.gradient(scaled, [v])
    assert float(grad[0]) == 2.0 * 2**15  # the gradient is scaled...
    opt.apply_gradients([(grad, v)])
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], rtol=1e-6)  # ...the update is not
    opt.apply_gradients([(tf.constant([np.inf, 1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], rtol=1e-6)
    assert float(opt.dynamic_scale) == 2.0**14


V1_CHECK = """
import keras, tensorflow as tf
v1 = tf.compat.v1
for name in ("enable_mixed_precision_graph_rewrite", "DynamicLossScale",
             "MixedPrecisionLossScaleOptimizer"):
    assert not hasattr(tf.train.experimental, name), name
    assert hasattr(v1.train.experimental, name) and hasattr(v1.mixed_precision, name), name
try:
    v1.mixed_precision.enable_mixed_precision_graph_rewrite(keras.optimizers.SGD(0.1))
except ValueError as e:
    print("keras optimizer:", str(e).split(",")[0])
v1.disable_eager_execution()
x = tf.Variable(3.0)
opt = v1.mixed_precision.enable_mixed_precision_graph_rewrite(
    v1.train.GradientDescentOptimizer(0.1), loss_scale=v1.mixed_precision.DynamicLossScale())
train = opt.minimize(x * x)
with v1.Session() as s:
    s.run(v1.global_variables_initializer())
    s.run(train)
    print("v1 step:", s.run(x))
"""


def test_v1_loss_scale_and_graph_rewrite_run_under_compat_v1_only():
    # In a process of its own: the rewrite call switches Grappler's pass on process-wide.
    out = subprocess.run(
        [sys.executable, "-c", V1_CHECK], capture_output=True, text=True, timeout=240
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith('keras optimizer: "opt" must be an instance of a tf.train.Optimizer')
    # x - 0.1 * 2x, the gradient scaled by 2**15 and unscaled again
    assert lines[1].startswith("v1 step: ")
    np.testing.assert_allclose(float(lines[1].split(": ")[1]), 3.0 - 0.1 * 6.0, rtol=1e-6)
