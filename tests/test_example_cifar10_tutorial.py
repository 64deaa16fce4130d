"""The CIFAR-10 tutorial example package: its TF1 model and input, TF2 twin and Keras port.

The example lives outside tf1_train (examples/cifar10_tutorial/); these tests
hold it to the model and input contracts it documents, and prove that its TF2
twin and Keras port compute what the TF1 model computes once given its weights.
"""

import importlib
import math
import pathlib

import numpy as np
import pytest
import tensorflow as tf

from examples.cifar10_tutorial import model as tutorial
from examples.cifar10_tutorial.model_keras import NAME_MAP, build_keras_model, load_tf1_weights
from examples.cifar10_tutorial.model_tf2 import Cifar10Tutorial

NUM_CLASSES = 10
SHAPES = [(24, 24, 3), (32, 20, 3)]
# scope -> (weight stddev, bias value, L2 decay or None), from the tutorial's description
LAYERS = {
    "conv1": (5e-2, 0.0, None),
    "conv2": (5e-2, 0.1, None),
    "local3": (0.04, 0.1, 0.004),
    "local4": (0.04, 0.1, 0.004),
    "softmax_linear": (1 / 192, 0.0, None),
}


def _two_pools(n):
    """Size after two 3x3 stride-2 SAME pools."""
    return math.ceil(math.ceil(n / 2) / 2)


def _expected_shapes(h, w, c):
    flat = _two_pools(h) * _two_pools(w) * 64
    dims = {
        "conv1": [5, 5, c, 64],
        "conv2": [5, 5, 64, 64],
        "local3": [flat, 384],
        "local4": [384, 192],
        "softmax_linear": [192, NUM_CLASSES],
    }
    shapes = {}
    for scope, dim in dims.items():
        shapes[f"{scope}/weights"] = dim
        shapes[f"{scope}/biases"] = [dim[-1]]
    return shapes


def _images(shape, n=4, seed=0):
    return np.random.default_rng(seed).normal(size=(n, *shape)).astype(np.float32)


def _run_tf1(images, seed=1):
    """Builds ``inference`` in a fresh graph: (values by name, logits, 'losses' values, ops)."""
    with tf.Graph().as_default() as g:
        tf.compat.v1.set_random_seed(seed)
        logits = tutorial.inference(tf.constant(images), True, NUM_CLASSES)
        losses = tf.compat.v1.get_collection("losses")
        variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            values, logits_v, losses_v = sess.run((variables, logits, losses))
    return values, logits_v, losses_v, [t.op.name for t in losses]


@pytest.mark.parametrize("shape", SHAPES)
def test_inference_makes_the_tutorials_variables_and_initial_values(shape):
    values, logits, _, _ = _run_tf1(_images(shape))
    assert {n: list(v.shape) for n, v in values.items()} == _expected_shapes(*shape)
    assert logits.shape == (4, NUM_CLASSES)
    for scope, (stddev, bias, _) in LAYERS.items():
        np.testing.assert_array_equal(values[f"{scope}/biases"], np.float32(bias))
        weights = values[f"{scope}/weights"]
        # truncated normal: within two stddevs, and not all equal
        assert np.abs(weights).max() <= 2 * stddev and weights.std() > 0.5 * stddev


def test_towers_share_variables_and_each_tower_gets_its_own_decay_terms():
    with tf.Graph().as_default():
        images = tf.zeros([2, 24, 24, 3])
        with tf.name_scope("tower_0"):
            tutorial.inference(images, True, NUM_CLASSES)
        count = len(tf.compat.v1.global_variables())
        scope = tf.compat.v1.get_variable_scope()
        with tf.compat.v1.variable_scope(scope, reuse=True), tf.name_scope("tower_1"):
            tutorial.inference(images, True, NUM_CLASSES)
        assert count == len(tf.compat.v1.global_variables()) == 10
        for tower in ("tower_0", "tower_1"):
            names = [t.op.name for t in tf.compat.v1.get_collection("losses", tower)]
            assert names == [f"{tower}/local3/weight_loss", f"{tower}/local4/weight_loss"]


def test_losses_collection_holds_the_two_weight_decay_terms():
    values, _, losses, names = _run_tf1(_images(SHAPES[0]))
    decayed = [scope for scope, (_, _, wd) in LAYERS.items() if wd is not None]
    assert names == [f"{scope}/weight_loss" for scope in decayed]
    for scope, got in zip(decayed, losses):
        w = values[f"{scope}/weights"].astype(np.float64)
        np.testing.assert_allclose(got, 0.004 * np.sum(w**2) / 2, rtol=1e-5)


def _preprocess(image, is_training, seed, label=7):
    """Runs ``preprocess`` inside tf.data, as the trainer does; returns (image, label, spec)."""
    ds = tf.data.Dataset.from_tensors((image, tf.constant(label, tf.int32), seed))
    ds = ds.map(lambda i, lab, s: tutorial.preprocess(i, lab, is_training, s))
    out_image, out_label = next(iter(ds))
    return out_image.numpy(), int(out_label), ds.element_spec


def _standardize(x):
    """tf.image.per_image_standardization, recomputed in numpy."""
    x = x.astype(np.float64)
    return (x - x.mean()) / max(x.std(), 1 / np.sqrt(x.size))


def _centred(x):
    """``x`` with each channel's mean removed, scaled to unit variance."""
    x = x.astype(np.float64) - x.mean(axis=(0, 1))
    return x / x.std()


def _which_crop(out, image):
    """The (top, left, flipped) whose 24x24 crop ``out`` was made from.

    Brightness adds one offset, contrast scales each channel about its mean
    by one positive factor, standardisation shifts and scales: with each
    channel's mean removed and the variance normalised, the output is the crop.
    """
    found = []
    for top in range(image.shape[0] - 23):
        for left in range(image.shape[1] - 23):
            crop = image[top : top + 24, left : left + 24]
            for flipped, candidate in ((False, crop), (True, crop[:, ::-1])):
                if np.allclose(_centred(out), _centred(candidate), atol=1e-4):
                    found.append((top, left, flipped))
    return found


def test_training_preprocess_is_a_seeded_crop_flip_with_static_shape():
    image = np.random.default_rng(1).uniform(size=(32, 32, 3)).astype(np.float32)
    crops, outputs = set(), []
    for i in range(6):
        seed = tf.constant([5, i], tf.int64)
        out, label, spec = _preprocess(image, True, seed)
        again, _, _ = _preprocess(image, True, seed)
        np.testing.assert_array_equal(out, again)
        assert spec[0].shape.as_list() == [24, 24, 3] and label == 7
        np.testing.assert_allclose([out.mean(), out.std()], [0.0, 1.0], atol=1e-4)
        (crop,) = _which_crop(out, image)
        crops.add(crop)
        outputs.append(out)
    assert len(crops) > 1  # different seeds, different crops
    assert not np.array_equal(outputs[0], outputs[1])


def test_eval_preprocess_is_the_standardised_central_crop():
    image = np.random.default_rng(2).uniform(size=(32, 32, 3)).astype(np.float32)
    out, label, spec = _preprocess(image, False, tf.constant([1, 2], tf.int64), label=3)
    other_seed, _, _ = _preprocess(image, False, tf.constant([9, 9], tf.int64))
    np.testing.assert_array_equal(out, other_seed)
    np.testing.assert_allclose(out, _standardize(image[4:28, 4:28]), atol=1e-5)
    assert spec[0].shape.as_list() == [24, 24, 3] and label == 3


@pytest.mark.parametrize("shape", SHAPES)
def test_tf2_twin_computes_what_the_tf1_model_computes(shape):
    images = _images(shape)
    values, logits, losses, _ = _run_tf1(images)
    twin = Cifar10Tutorial(shape, NUM_CLASSES, seed=3)
    assert {n: v.shape.as_list() for n, v in twin.by_name.items()} == _expected_shapes(*shape)
    assert {v.name for v in twin.trainable_variables} == {f"{n}:0" for n in values}
    assert not np.allclose(twin(images, training=False).numpy(), logits, atol=1e-6)
    for name, variable in twin.by_name.items():
        variable.assign(values[name])
    np.testing.assert_allclose(twin(images, training=True).numpy(), logits, atol=1e-6)
    got = [t.numpy() for t in twin.extra_losses()]
    assert all(t.dtype == tf.float32 and t.shape == [] for t in twin.extra_losses())
    np.testing.assert_allclose(got, losses, rtol=1e-6)


def test_keras_port_computes_the_tf1_logits_and_regularisation():
    shape = SHAPES[0]
    images = _images(shape)
    values, logits, losses, _ = _run_tf1(images)
    model = build_keras_model(shape, NUM_CLASSES)
    assert sorted(v.path for v in model.weights) == sorted(NAME_MAP)
    assert sorted(NAME_MAP.values()) == sorted(values)
    load_tf1_weights(model, values)
    np.testing.assert_allclose(model(images).numpy(), logits, atol=1e-5)
    assert len(model.losses) == len(losses)
    np.testing.assert_allclose(float(sum(model.losses)), float(np.sum(losses)), rtol=1e-5)


def test_flagfile_names_importable_functions_and_the_tutorials_decay_steps():
    path = pathlib.Path(__file__).resolve().parent.parent / "examples/cifar10_tutorial/train.flags"
    flags = dict(
        line.lstrip("-").partition("=")[::2]
        for line in path.read_text().splitlines()
        if line.startswith("--")
    )
    for flag in ("model", "preprocess"):
        module, _, function = flags[flag].partition(":")
        assert callable(getattr(importlib.import_module(module), function))
    assert flags["model"].endswith(":inference") and flags["preprocess"].endswith(":preprocess")
    # 350 epochs of 50,000 examples in batches of --batch_size, as the tutorial computed it
    assert int(flags["lr_decay_steps"]) == int(350 * 50_000 / int(flags["batch_size"]))
    assert float(flags["moving_average_decay"]) == 0.9999 and "lr_staircase" in flags
