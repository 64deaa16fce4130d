"""tf1_train.compat.layers against the real legacy tf.compat.v1.layers.

The goldens come from scripts/make_layer_goldens.py, run with tf_keras and
TF_USE_LEGACY_KERAS=1 in an environment of its own (docs/LEGACY_LAYERS.md):
variable names, shapes, dtypes and the TRAINABLE / GLOBAL / UPDATE_OPS /
REGULARIZATION_LOSSES collections must be equal; outputs, gradients,
regularization terms and the variables after one run of UPDATE_OPS must agree
to 1e-6 with the same weights; and the legacy Saver checkpoints restore into
graphs built with ours. TensorFlow's own private legacy dense, convolution and
pooling layers are a second, in-process reference for the models without
batch normalization.
"""

import functools
import importlib.util
import inspect
import json
import os
import pathlib
import subprocess
import sys
import types

import compat_layer_models as models
import numpy as np
import pytest
import tensorflow as tf

from tf1_train import compat
from tf1_train.compat import layers

GOLDENS = pathlib.Path(__file__).resolve().parent / "goldens" / "compat_layers"
REPORT = json.loads((GOLDENS / "goldens.json").read_text())
TOL = dict(rtol=1e-6, atol=1e-6)


def _golden(name):
    golden = REPORT["models"][name]
    if "error" in golden:
        pytest.skip(
            f"the legacy layers could not run {name} when the goldens were made: {golden['error']}"
        )
    if name == "channels_first" and os.environ.get("TF_ENABLE_ONEDNN_OPTS") == "0":
        pytest.skip("CPU kernels without oneDNN have no NCHW pooling gradients (legacy layers too)")
    return golden


# Models that subclass tf.keras.layers.Wrapper, which is TF 1.x's only under install().
NEED_INSTALL = {"wrapped_layers"}


@functools.cache
def _ours(name, restore=None):
    arrays = dict(np.load(GOLDENS / f"{name}.npz"))
    weights = {k[2:]: v for k, v in arrays.items() if k.startswith("w/")}
    weights = None if restore else weights
    if name not in NEED_INSTALL:
        return models.measure(tf, layers, name, weights=weights, restore=restore)
    compat.install()
    try:
        return models.measure(tf, layers, name, weights=weights, restore=restore)
    finally:
        compat.uninstall()


def _assert_arrays_close(ours, theirs, what):
    assert sorted(ours) == sorted(theirs), what
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], err_msg=f"{what}: {key}", **TOL)


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_names_and_collections_equal_the_legacy_layers(name):
    golden = _golden(name)
    meta, _ = _ours(name)
    assert meta == golden


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_outputs_gradients_and_moving_stats_match_the_legacy_layers(name):
    _golden(name)
    _, arrays = _ours(name)
    _assert_arrays_close(arrays, dict(np.load(GOLDENS / f"{name}.npz")), name)


@pytest.mark.parametrize("name", REPORT["checkpoints"])
def test_legacy_checkpoint_restores_into_our_graph(name):
    _golden(name)
    _, arrays = _ours(name, restore=str(GOLDENS / f"{name}.ckpt"))
    _assert_arrays_close(arrays, dict(np.load(GOLDENS / f"{name}.npz")), name)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda x: layers.batch_normalization(x, renorm=True, renorm_clipping={"r_max": 3}),
            "contains keys not in",
        ),
        (lambda x: layers.batch_normalization(x, virtual_batch_size=0), "positive integer"),
        (
            lambda x: layers.batch_normalization(x, virtual_batch_size=2, adjustment=abs),
            "adjustment cannot",
        ),
        (lambda x: layers.dense(x, 2, activation="gelu_nope"), "unknown activation"),
        (lambda x: layers.conv2d(x, 2, 3, padding="full"), "padding must be"),
        (lambda x: layers.conv2d(x, 2, 3, kernel_initializer="orthogonal"), "unknown initializer"),
        (lambda x: layers.max_pooling2d(x, 2, 2, data_format="NHWC"), "data_format must be"),
        (lambda x: layers.dense(tf.reshape(x, [-1]), 2), "rank >= 2"),
        (lambda x: layers.Conv4D(2, 3), "has no 'Conv4D'"),
        (lambda x: layers.conv2d(x, 2, 3, padding="causal"), "must be 'valid' or 'same', got"),
        (lambda x: layers.conv1d(x[:, 0], 2, 3, padding="full"), "'valid' or 'same' or 'causal'"),
    ],
)
def test_unsupported_arguments_are_refused_with_what_is_valid(call, message):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 4, 4, 3])
        with pytest.raises((ValueError, AttributeError), match=message):
            call(x)


@pytest.mark.parametrize(
    "initializer, fan, uniform",
    [("he_normal", 2 / 400, False), ("he_uniform", 2 / 400, True), (None, 2 / 600, True)],
)
def test_initializer_names_follow_the_keras_definitions(initializer, fan, uniform):
    # Keras: variance scale/fan; uniform in +-sqrt(3 var); None is Glorot uniform.
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 400])
        layers.dense(x, 200, kernel_initializer=initializer)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            (kernel,) = sess.run(tf.compat.v1.trainable_variables("dense/kernel"))
    assert abs(kernel.std() / np.sqrt(fan) - 1) < 0.05
    bound = np.sqrt(3 * fan) if uniform else 2 * np.sqrt(fan) / 0.87962566
    # float32 samples: uniform's edge, -limit + 2 * limit * u, can round to
    # float32(limit), above the float64 bound (seen once: 0.1f > 0.1).
    assert np.abs(kernel).max() <= np.float32(bound)


@pytest.mark.skipif(
    importlib.util.find_spec("tf_keras") is not None, reason="tf_keras is here: it would run"
)
def test_golden_script_says_where_to_run_it_without_tf_keras():
    script = GOLDENS.parents[2] / "scripts" / "make_layer_goldens.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error: tf_keras is not installed") and out.stderr.count("\n") == 1


def test_goldens_cover_the_models_the_layers_are_held_to():
    made = {name for name, m in REPORT["models"].items() if "error" not in m}
    assert {"mlp", "convnet_train", "convnet_infer", "reuse_twice", "unnamed_in_scope"} <= made
    assert set(REPORT["models"]) == set(models.MODELS)


def _tensorflow_private_layers():
    """TensorFlow 2.21's own legacy dense/conv/pool layers, still importable."""
    from tensorflow.python.layers import convolutional, core, pooling

    names = ["dense", "flatten", "Dense"]
    names += ["conv2d", "conv2d_transpose", "separable_conv2d"]
    names += ["max_pooling2d", "average_pooling2d"]
    names += ["conv1d", "separable_conv1d", "Conv1D", "conv3d", "conv3d_transpose"]
    names += ["max_pooling1d", "average_pooling1d", "max_pooling3d", "average_pooling3d"]
    found = {}
    for name in names:
        for module in (core, convolutional, pooling):
            if hasattr(module, name):
                found[name] = getattr(module, name)
    return types.SimpleNamespace(**found)


@pytest.mark.parametrize(
    "name",
    ["conv1d", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "separable_conv1d",
     "separable_conv2d", "max_pooling1d", "average_pooling2d", "max_pooling3d"],
)  # fmt: skip
def test_functional_signatures_are_the_legacy_ones_positional_order_and_defaults(name):
    from tensorflow.python.layers import convolutional, pooling

    theirs = getattr(pooling if "pooling" in name else convolutional, name)
    ours = getattr(layers, name)
    assert ours.__name__ == name
    pairs = zip(
        inspect.signature(ours).parameters.values(), inspect.signature(theirs).parameters.values()
    )
    for mine, legacy in pairs:
        assert mine.name == legacy.name
        if not callable(legacy.default):  # bias_initializer: an initializer object each
            assert mine.default == legacy.default, (name, mine.name)
    assert len(inspect.signature(ours).parameters) == len(inspect.signature(theirs).parameters)


# Not dropout_training: TensorFlow's private Dropout gives every call of one
# seeded layer the same seed; tf_keras's, and ours, advance it per call.
@pytest.mark.parametrize("name", ["mlp", "conv_family", "conv1d_family", "conv3d_family"])
def test_matches_tensorflows_private_legacy_layers(name):
    private = _tensorflow_private_layers()
    theirs_meta, theirs = models.measure(tf, private, name)
    meta, ours = models.measure(tf, layers, name)
    assert meta == theirs_meta
    _assert_arrays_close(ours, theirs, name)
