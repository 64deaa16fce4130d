"""``tf.contrib.predictor.from_saved_model`` after tf1_train.compat.install()
(tf1_train/compat/_contrib_predictor.py), on a SavedModel TensorFlow 1.15.5
exported, held to what TF 1.15.5's own predictor returned
(tests/goldens/predictor_tf115, scripts/make_contrib_predictor_goldens.py)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

GOLDEN = os.path.join(os.path.dirname(__file__), "goldens", "predictor_tf115")
MODEL = os.path.join(GOLDEN, "model")


@pytest.fixture(scope="module")
def expected():
    with open(os.path.join(GOLDEN, "expected.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("key", [None, "classify"])
def test_a_tf_1_15_5_export_predicts_what_tf_1_15_5s_predictor_did(installed, expected, key):
    predict = tf.compat.v1.contrib.predictor.from_saved_model(MODEL, signature_def_key=key)
    found = predict({"x": np.array(expected["batch"], np.float32)})
    want = expected[key or "serving_default"]
    assert sorted(found) == sorted(want)
    for name, value in want.items():
        np.testing.assert_allclose(found[name], value, rtol=1e-6, err_msg=name)
    assert set(predict.feed_tensors) == {"x"} and predict.session.graph is predict.graph


def test_tensor_names_instead_of_a_signature(installed, expected):
    from tensorflow.contrib import predictor

    named = predictor.from_saved_model(MODEL, input_names={"x": "x:0"},
                                       output_names={"p": "probs:0"})  # fmt: skip
    found = named({"x": np.array(expected["batch"], np.float32)})
    np.testing.assert_allclose(found["p"], expected["by_names"]["p"], rtol=1e-6)
    with pytest.raises(ValueError, match="unexpected keys"):
        named({"y": 1})


def test_tf_1_15s_refusals(installed):
    from tensorflow.contrib import predictor

    with pytest.raises(ValueError, match="Available signatures are"):
        predictor.from_saved_model(MODEL, signature_def_key="nope")
    with pytest.raises(ValueError, match="both be specified"):
        predictor.from_saved_model(MODEL, input_names={"x": "x:0"})
    with pytest.raises(AttributeError, match="export_saved_model"):
        predictor.from_estimator  # noqa: B018
