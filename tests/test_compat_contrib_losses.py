"""``tf.contrib.losses`` after tf1_train.compat.install()
(tf1_train/compat/_contrib_losses.py), held to TensorFlow 1.15.5's own module
(tests/goldens/contrib_losses_tf115.json, scripts/make_contrib_losses_goldens.py)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from contrib_losses_cases import outcomes

GOLDEN = os.path.join(os.path.dirname(__file__), "goldens", "contrib_losses_tf115.json")


def test_every_loss_and_weighting_gives_tf_1_15_5s_number(installed):
    with open(GOLDEN) as f:
        golden = json.load(f)
    with tf.Graph().as_default():
        found = outcomes(tf.compat.v1)
    assert sorted(found) == sorted(k for k in golden if k != "versions")
    for key, value in found.items():
        np.testing.assert_allclose(value, golden[key], rtol=2e-6, atol=1e-7, err_msg=key)


def test_tf_losses_refuses_the_per_example_weights_tf_1_0_took(installed):
    """Why the module is not tf.compat.v1.losses with the arguments swapped."""
    with tf.Graph().as_default():
        p, y, w = tf.ones([4, 3]), tf.zeros([4, 3]), tf.constant([1.0, 0.0, 2.0, 0.5])
        with pytest.raises(ValueError):
            tf.compat.v1.losses.mean_squared_error(y, p, w)
        assert tf.compat.v1.contrib.losses.mean_squared_error(p, y, w).shape == []


def test_metric_learning_is_one_line(installed):
    with pytest.raises(AttributeError, match="TensorFlow Addons"):
        tf.compat.v1.contrib.losses.metric_learning  # noqa: B018
