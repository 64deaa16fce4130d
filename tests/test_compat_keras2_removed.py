"""Keras 2's ``keras.preprocessing`` names that Keras 3 dropped, put back by
tf1_train.compat.install() (_keras2_removed.py), against Keras 2.2.4 on
TensorFlow 1.15.5 (tests/goldens/keras2_preprocessing.json)."""

import importlib
import json
import os

import numpy as np
import pytest
import tensorflow as tf
from keras2_preprocessing_cases import outcomes

from tf1_train.compat import _keras2_image, _keras2_removed
from tf1_train.port import scan

GOLDEN = os.path.join(os.path.dirname(__file__), "goldens", "keras2_preprocessing.json")


def test_the_names_are_back_keras_2s_transforms_and_keras_3s_copies_of_the_rest(installed):
    for submodule, names in _keras2_removed.NAMES.items():
        module = importlib.import_module(f"keras.preprocessing.{submodule}")
        tf_keras = getattr(tf.keras.preprocessing, submodule)
        for name in names:
            ours = _keras2_image.NAMES.get(name) if submodule == "image" else None
            assert getattr(module, name) is (ours or getattr(tf_keras, name)), name
    from keras.preprocessing.text import Tokenizer

    assert Tokenizer is tf.keras.preprocessing.text.Tokenizer
    assert sorted(_keras2_image.NAMES) == sorted(_keras2_removed.TRANSFORMS)


def test_keras_3s_copy_transforms_otherwise(installed):
    """Why the image transforms are Keras 2's own: TensorFlow 2.21's
    tf.keras.preprocessing (Keras 3's copy) moves every augmented pixel."""
    with open(GOLDEN) as f:
        golden = json.load(f)
    x = np.linspace(0, 255, 6 * 8 * 8 * 3).reshape(6, 8, 8, 3).astype(np.float32)
    x = (x * np.arange(1, 7).reshape(6, 1, 1, 1)) % 255
    params = {"theta": 20, "tx": 1, "ty": 2, "shear": 10, "zx": 1.1, "zy": 0.9}
    axes = {"row_axis": 0, "col_axis": 1, "channel_axis": 2}
    keras3 = tf.keras.preprocessing.image.apply_affine_transform(x[1], **params, **axes)
    assert np.abs(keras3.ravel() - golden["affine"]).max() > 10
    np.testing.assert_allclose(
        _keras2_image.apply_affine_transform(x[1], **params).ravel(), golden["affine"], atol=2e-4
    )


def test_they_are_gone_without_install():
    with pytest.raises(ImportError):
        exec("from keras.preprocessing.image import ImageDataGenerator", {})
    with pytest.raises(ImportError):
        exec("import keras.preprocessing.text", {})


def test_they_give_keras_2_2_4s_numbers(installed, tmp_path):
    from keras.preprocessing import image, sequence, text

    with open(GOLDEN) as f:
        golden = json.load(f)
    found = outcomes(image, text, sequence, str(tmp_path))
    found = json.loads(json.dumps(found))  # tuples as lists, as the golden holds them
    assert sorted(found) == sorted(k for k in golden if k != "versions")
    for key, value in found.items():
        if isinstance(value, list) and value and isinstance(value[0], float):
            np.testing.assert_allclose(value, golden[key], atol=2e-4, err_msg=key)
        else:
            assert value == golden[key], key


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_says_they_work_after_install(tmp_path, compat):
    (tmp_path / "prog.py").write_text(
        "from keras.preprocessing.image import ImageDataGenerator\n"
        "from keras.preprocessing.text import Tokenizer\n"
        "import keras.preprocessing.sequence as s\n"
        "g = s.TimeseriesGenerator\n"
        "from keras.engine.topology import Layer\n"
    )
    found = scan.scan([str(tmp_path)], compat=compat).findings
    severities = [(f.line, f.severity) for f in found if f.rule == "keras2-module"]
    served = [(1, "works")] if compat else [(n, "breaks") for n in (1, 2, 4)]
    assert severities == served + [(5, "breaks")]  # works: once per file


@pytest.mark.parametrize(
    "arguments, moves",
    [
        ("horizontal_flip=True, rescale=0.5", False),
        ("rotation_range=15", True),
        ("False, False, False, False, False, 1e-5, 0", False),  # by position: zca_epsilon only
        ("False, False, False, False, False, 1e-6, 0, 0.1", True),  # width_shift_range
    ],
)
def test_the_scan_reports_a_tf_keras_generator_exactly_when_its_images_change(
    tmp_path, arguments, moves
):
    (tmp_path / "prog.py").write_text(
        "import tensorflow as tf\n"
        f"gen = tf.keras.preprocessing.image.ImageDataGenerator({arguments})\n"
    )
    found = [f for f in scan.scan([str(tmp_path)]).findings if f.rule == "keras-image-transforms"]
    assert [(f.line, f.severity) for f in found] == ([(2, "changes numbers")] if moves else [])
    x = np.random.RandomState(2).uniform(0, 255, (4, 8, 8, 3))
    tf2 = eval(f"tf.keras.preprocessing.image.ImageDataGenerator({arguments})")
    tf1 = eval(f"_keras2_image.ImageDataGenerator({arguments})")
    tf2, tf1 = (next(generator.flow(x, seed=5)) for generator in (tf2, tf1))
    assert np.array_equal(tf1, tf2) != moves
