"""The CIFAR-10 tutorial's model ported to Keras 3, as a porter would write it.

``build_keras_model(input_shape, num_classes)`` gives a functional
``keras.Model`` that computes what ``model.inference`` computes, and
``NAME_MAP`` maps each Keras variable path to its TF1 checkpoint name, so a
model trained by tf1_train can be loaded into it (``load_tf1_weights``).

What a port has to get right:

- local response normalisation has no Keras layer: a small layer calls
  ``tf.nn.local_response_normalization`` (TensorFlow backend only);
- ``tf.nn.l2_loss(w)`` is ``sum(w**2) / 2`` while ``keras.regularizers.L2(l)``
  is ``l * sum(w**2)``: the tutorial's ``0.004 * l2_loss`` is ``L2(0.002)``.
  The terms then appear in ``model.losses`` instead of a graph collection;
- pooling is 3x3 stride 2 ``"same"``, as ``tf.nn.max_pool2d(..., "SAME")``;
- ``Flatten`` on channels-last images flattens in the order of
  ``tf.reshape``, so the ``local3`` weights need no permutation.
"""

from __future__ import annotations

from typing import Callable, Dict, Tuple

import keras
import numpy as np
import tensorflow as tf

from examples.cifar10_tutorial.model import LRN_PARAMS, WEIGHT_DECAY

# Keras variable path -> TF1 checkpoint name.
NAME_MAP: Dict[str, str] = {
    f"{layer}/{keras_name}": f"{layer}/{tf1_name}"
    for layer in ("conv1", "conv2", "local3", "local4", "softmax_linear")
    for keras_name, tf1_name in (("kernel", "weights"), ("bias", "biases"))
}


class LocalResponseNorm(keras.layers.Layer):
    """``tf.nn.local_response_normalization`` with the tutorial's parameters."""

    def call(self, inputs):
        return tf.nn.local_response_normalization(inputs, **LRN_PARAMS)


def _conv(name: str, bias: float) -> keras.layers.Layer:
    return keras.layers.Conv2D(
        64,
        5,
        padding="same",
        activation="relu",
        kernel_initializer=keras.initializers.TruncatedNormal(stddev=5e-2),
        bias_initializer=keras.initializers.Constant(bias),
        name=name,
    )


def _dense(name: str, units: int, stddev: float, decay: bool, activation=None):
    # 0.004 * sum(w**2) / 2 == 0.002 * sum(w**2)
    regularizer = keras.regularizers.L2(WEIGHT_DECAY / 2) if decay else None
    return keras.layers.Dense(
        units,
        activation=activation,
        kernel_initializer=keras.initializers.TruncatedNormal(stddev=stddev),
        bias_initializer=keras.initializers.Constant(0.1 if decay else 0.0),
        kernel_regularizer=regularizer,
        name=name,
    )


def _pool(name: str) -> keras.layers.Layer:
    return keras.layers.MaxPooling2D(pool_size=3, strides=2, padding="same", name=name)


def build_keras_model(input_shape: Tuple[int, int, int], num_classes: int) -> keras.Model:
    """The tutorial's network on ``input_shape`` (H, W, C) images; outputs logits."""
    layers: Tuple[Callable, ...] = (
        _conv("conv1", 0.0),
        _pool("pool1"),
        LocalResponseNorm(name="norm1"),
        _conv("conv2", 0.1),
        LocalResponseNorm(name="norm2"),
        _pool("pool2"),
        keras.layers.Flatten(name="flatten"),
        _dense("local3", 384, 0.04, True, "relu"),
        _dense("local4", 192, 0.04, True, "relu"),
        _dense("softmax_linear", num_classes, 1 / 192.0, False),
    )
    inputs = x = keras.Input(shape=input_shape, name="images")
    for layer in layers:
        x = layer(x)
    return keras.Model(inputs, x, name="cifar10_tutorial")


def load_tf1_weights(model: keras.Model, values: Dict[str, np.ndarray]) -> None:
    """Assigns TF1 values (by checkpoint name) to the model's variables via ``NAME_MAP``."""
    for variable in model.weights:
        variable.assign(values[NAME_MAP[variable.path]])
