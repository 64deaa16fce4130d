"""contrib.rnn's ``ConvLSTMCell`` (and ``Conv1D/2D/3DLSTMCell``) from TF1 for a
TF2 twin: LSTMCell's gates from one "SAME" convolution of ``[inputs, h]``
on TF1's names (``conv_lstm_cell/kernel``, ``kernel_shape + [in + out
channels, 4 out channels]``, gates i, j, f, o; ``biases``), so a twin
restores the TF1 checkpoint as it is.

A Keras port uses ``ConvLSTM1D/2D/3D`` instead, with the kernel split by
tf1_train.port.rnn_weights.keras_conv_lstm (docs/LEGACY_LAYERS.md).
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from tf1_train.tf2.layers import glorot_uniform, read, zeros
from tf1_train.tf2.rnn_cells import State, _Cell

_CONVOLUTIONS = {1: tf.nn.conv1d, 2: tf.nn.conv2d, 3: tf.nn.conv3d}


class ConvLSTMCell(_Cell):
    """``ConvLSTMCell(conv_ndims, input_shape, output_channels,
    kernel_shape, use_bias=True, skip_connection=False, forget_bias=1.0)``:
    the state ``(c, h)`` of shape ``input_shape[:-1] + [output_channels]``;
    ``skip_connection`` appends the inputs to the output (and to ``h``)."""

    scope = "conv_lstm_cell"

    def __init__(self, conv_ndims: int, input_shape: Sequence[int], output_channels: int,
                 kernel_shape: Sequence[int], use_bias: bool = True,
                 skip_connection: bool = False, forget_bias: float = 1.0,
                 name: str = ""):  # fmt: skip
        if name:
            self.scope = name
        if conv_ndims != len(input_shape) - 1:
            shape = list(input_shape)
            raise ValueError(f"Invalid input_shape {shape} for conv_ndims={conv_ndims}.")
        self.ndims, self.input_shape = conv_ndims, list(input_shape)
        self.units, self.kernel_shape = output_channels, list(kernel_shape)
        self.use_bias, self.skip, self.forget_bias = use_bias, skip_connection, forget_bias

    def build(self, params, prefix, depth):
        name = self._under(prefix)
        rows = self.input_shape[-1] + self.units
        shape = self.kernel_shape + [rows, 4 * self.units]
        self.kernel = params.create(f"{name}/kernel", shape, glorot_uniform)
        self.biases = None
        if self.use_bias:
            self.biases = params.create(f"{name}/biases", [4 * self.units], zeros)
        return self.units + (self.input_shape[-1] if self.skip else 0)

    def zero_state(self, batch, dtype) -> State:
        shape = tf.concat([[batch], self.input_shape[:-1], [self.units]], 0)
        return (tf.zeros(shape, dtype), tf.zeros(shape, dtype))

    def __call__(self, x, state: State):
        c, h = state
        both = tf.concat([x, h], axis=-1)
        strides = 1 if self.ndims == 1 else [1] * (self.ndims + 2)  # as TF1's cell passed them
        gates = _CONVOLUTIONS[self.ndims](both, read(self.kernel, both), strides, padding="SAME")
        if self.biases is not None:
            gates = gates + read(self.biases, both)
        i, j, f, o = tf.split(gates, 4, axis=-1)
        forget = tf.sigmoid(f + tf.constant(self.forget_bias, f.dtype))
        new_c = forget * c + tf.sigmoid(i) * tf.tanh(j)
        output = tf.tanh(new_c) * tf.sigmoid(o)
        if self.skip:
            output = tf.concat([output, x], axis=-1)
        return output, (new_c, output)


class Conv1DLSTMCell(ConvLSTMCell):
    """``Conv1DLSTMCell(input_shape=..., ...)``: conv_ndims 1, its own scope."""

    scope = "conv_1d_lstm_cell"

    def __init__(self, **kwargs):
        super().__init__(conv_ndims=1, **kwargs)


class Conv2DLSTMCell(ConvLSTMCell):
    """``Conv2DLSTMCell(input_shape=..., ...)``: conv_ndims 2."""

    scope = "conv_2d_lstm_cell"

    def __init__(self, **kwargs):
        super().__init__(conv_ndims=2, **kwargs)


class Conv3DLSTMCell(ConvLSTMCell):
    """``Conv3DLSTMCell(input_shape=..., ...)``: conv_ndims 3."""

    scope = "conv_3d_lstm_cell"

    def __init__(self, **kwargs):
        super().__init__(conv_ndims=3, **kwargs)
