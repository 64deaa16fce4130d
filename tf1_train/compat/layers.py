"""``tf.compat.v1.layers`` for Keras 3: the functional layers and their class
forms, built on ``get_variable`` and ``tf.nn`` with the legacy signatures,
defaults and variable names (``dense/kernel``, ``conv2d_1/bias``,
``batch_normalization/moving_mean``...), so TF1 checkpoints load and TF1
programs build the same graph. docs/LEGACY_LAYERS.md has the contract."""

from typing import Callable, Optional

from tf1_train.compat._base import ZEROS, InputSpec, Layer
from tf1_train.compat._batchnorm import BatchNormalization, batch_normalization
from tf1_train.compat._conv import (
    AveragePooling2D,
    Conv2D,
    Conv2DTranspose,
    MaxPooling2D,
    SeparableConv2D,
)
from tf1_train.compat._conv_nd import (
    AveragePooling1D,
    AveragePooling3D,
    Conv1D,
    Conv3D,
    Conv3DTranspose,
    MaxPooling1D,
    MaxPooling3D,
    SeparableConv1D,
)
from tf1_train.compat._core import Dense, Dropout, Flatten, dense, dropout, flatten

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Dense",
    "Dropout",
    "Flatten",
    "InputSpec",
    "Layer",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "SeparableConv1D",
    "SeparableConv2D",
    "average_pooling1d",
    "average_pooling2d",
    "average_pooling3d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
    "max_pooling3d",
    "separable_conv1d",
    "separable_conv2d",
]


# TF 1.x's functional convolutions of one kind differed only in their layer and in the
# rank of their tuple defaults (strides=1, (1, 1), (1, 1, 1)): one signature per kind.
def _convolution(layer_class, name: str, ones):
    def conv(
        inputs,
        filters: int,
        kernel_size,
        strides=ones,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate=ones,
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
        return layer_class(**_conv_args(locals()), dilation_rate=dilation_rate)(inputs)

    return _named(conv, name)


def _transpose(layer_class, name: str, ones):
    def conv_transpose(
        inputs,
        filters: int,
        kernel_size,
        strides=ones,
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
        return layer_class(**_conv_args(locals()))(inputs)

    return _named(conv_transpose, name)


def _separable(layer_class, name: str, ones):
    def separable_conv(
        inputs,
        filters: int,
        kernel_size,
        strides=ones,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate=ones,
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
        args = _conv_args(locals())
        for key in ("depthwise", "pointwise"):
            for part in ("initializer", "regularizer", "constraint"):
                args[f"{key}_{part}"] = locals()[f"{key}_{part}"]
        layer = layer_class(**args, dilation_rate=dilation_rate, depth_multiplier=depth_multiplier)
        return layer(inputs)

    return _named(separable_conv, name)


def _named(function, name: str):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``tf.compat.v1.layers.{name}``."
    return function


conv1d = _convolution(Conv1D, "conv1d", 1)  # padding='causal' too
conv2d = _convolution(Conv2D, "conv2d", (1, 1))
conv3d = _convolution(Conv3D, "conv3d", (1, 1, 1))
conv2d_transpose = _transpose(Conv2DTranspose, "conv2d_transpose", (1, 1))
conv3d_transpose = _transpose(Conv3DTranspose, "conv3d_transpose", (1, 1, 1))
separable_conv1d = _separable(SeparableConv1D, "separable_conv1d", 1)
separable_conv2d = _separable(SeparableConv2D, "separable_conv2d", (1, 1))


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


def _pooling(layer_class, name: str):
    """A functional pooling layer: TF 1.x's six had this one signature."""

    def pool(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        layer = layer_class(pool_size, strides, padding=padding, data_format=data_format, name=name)
        return layer(inputs)

    return _named(pool, name)


max_pooling1d = _pooling(MaxPooling1D, "max_pooling1d")
average_pooling1d = _pooling(AveragePooling1D, "average_pooling1d")
max_pooling2d = _pooling(MaxPooling2D, "max_pooling2d")
average_pooling2d = _pooling(AveragePooling2D, "average_pooling2d")
max_pooling3d = _pooling(MaxPooling3D, "max_pooling3d")
average_pooling3d = _pooling(AveragePooling3D, "average_pooling3d")


def __getattr__(name: str):
    # A legacy name this module does not implement: say so, and what it has.
    raise AttributeError(
        f"tf1_train.compat.layers has no {name!r} (the legacy tf.layers API it implements: "
        f"{', '.join(__all__)})"
    )
