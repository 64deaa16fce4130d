"""``tf.compat.v1.layers`` for Keras 3: the functional layers and their class
forms, built on ``get_variable`` and ``tf.nn`` with the legacy signatures,
defaults and variable names (``dense/kernel``, ``conv2d_1/bias``,
``batch_normalization/moving_mean``...), so TF1 checkpoints load and TF1
programs build the same graph. docs/LEGACY_LAYERS.md has the contract."""

from typing import Callable, Optional

from tf1_train.compat._base import ZEROS, Layer
from tf1_train.compat._batchnorm import BatchNormalization, batch_normalization
from tf1_train.compat._conv import (
    AveragePooling2D,
    Conv2D,
    Conv2DTranspose,
    MaxPooling2D,
    SeparableConv2D,
)
from tf1_train.compat._core import Dense, Dropout, Flatten, dense, dropout, flatten

__all__ = [
    "AveragePooling2D",
    "BatchNormalization",
    "Conv2D",
    "Conv2DTranspose",
    "Dense",
    "Dropout",
    "Flatten",
    "Layer",
    "MaxPooling2D",
    "SeparableConv2D",
    "average_pooling2d",
    "batch_normalization",
    "conv2d",
    "conv2d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling2d",
    "separable_conv2d",
]


def conv2d(
    inputs,
    filters: int,
    kernel_size,
    strides=(1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate=(1, 1),
    activation=None,
    use_bias: bool = True,
    kernel_initializer=None,
    bias_initializer=ZEROS,
    kernel_regularizer: Optional[Callable] = None,
    bias_regularizer: Optional[Callable] = None,
    activity_regularizer: Optional[Callable] = None,
    kernel_constraint: Optional[Callable] = None,
    bias_constraint: Optional[Callable] = None,
    trainable: bool = True,
    name: Optional[str] = None,
    reuse=None,
):
    """``tf.compat.v1.layers.conv2d``."""
    return Conv2D(**_conv_args(locals()), dilation_rate=dilation_rate)(inputs)


def conv2d_transpose(
    inputs,
    filters: int,
    kernel_size,
    strides=(1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    activation=None,
    use_bias: bool = True,
    kernel_initializer=None,
    bias_initializer=ZEROS,
    kernel_regularizer: Optional[Callable] = None,
    bias_regularizer: Optional[Callable] = None,
    activity_regularizer: Optional[Callable] = None,
    kernel_constraint: Optional[Callable] = None,
    bias_constraint: Optional[Callable] = None,
    trainable: bool = True,
    name: Optional[str] = None,
    reuse=None,
):
    """``tf.compat.v1.layers.conv2d_transpose``."""
    return Conv2DTranspose(**_conv_args(locals()))(inputs)


def separable_conv2d(
    inputs,
    filters: int,
    kernel_size,
    strides=(1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate=(1, 1),
    depth_multiplier: int = 1,
    activation=None,
    use_bias: bool = True,
    depthwise_initializer=None,
    pointwise_initializer=None,
    bias_initializer=ZEROS,
    depthwise_regularizer: Optional[Callable] = None,
    pointwise_regularizer: Optional[Callable] = None,
    bias_regularizer: Optional[Callable] = None,
    activity_regularizer: Optional[Callable] = None,
    depthwise_constraint: Optional[Callable] = None,
    pointwise_constraint: Optional[Callable] = None,
    bias_constraint: Optional[Callable] = None,
    trainable: bool = True,
    name: Optional[str] = None,
    reuse=None,
):
    """``tf.compat.v1.layers.separable_conv2d``."""
    args = _conv_args(locals())
    for key in ("depthwise", "pointwise"):
        for part in ("initializer", "regularizer", "constraint"):
            args[f"{key}_{part}"] = locals()[f"{key}_{part}"]
    return SeparableConv2D(**args, dilation_rate=dilation_rate, depth_multiplier=depth_multiplier)(
        inputs
    )


def _conv_args(given: dict) -> dict:
    """The constructor arguments all functional convolutions pass the same way."""
    keys = [
        "filters",
        "kernel_size",
        "strides",
        "padding",
        "data_format",
        "activation",
        "use_bias",
        "bias_initializer",
        "bias_regularizer",
        "activity_regularizer",
        "bias_constraint",
        "trainable",
        "name",
    ]
    args = {k: given[k] for k in keys}
    for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
        if key in given:
            args[key] = given[key]
    args.update(_scope=given["name"], _reuse=given["reuse"])
    return args


def max_pooling2d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """``tf.compat.v1.layers.max_pooling2d``."""
    layer = MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)
    return layer(inputs)


def average_pooling2d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """``tf.compat.v1.layers.average_pooling2d``."""
    layer = AveragePooling2D(
        pool_size, strides, padding=padding, data_format=data_format, name=name
    )
    return layer(inputs)


def __getattr__(name: str):
    # A legacy name this module does not implement: say so, and what it has.
    raise AttributeError(
        f"tf1_train.compat.layers has no {name!r} (the legacy tf.layers API it implements: "
        f"{', '.join(__all__)})"
    )
