"""contrib.rnn's ``OutputProjectionWrapper`` and ``InputProjectionWrapper`` from TF1
for a TF2 twin: TF1's dense layer after (before) the wrapped cell, on TF1's
names (``output_projection_wrapper/kernel``, ``bias``, the cell's variables
under the same scope), so a twin restores the TF1 checkpoint as it is.

A Keras port needs none of this: ``Dense`` on the layer's sequence holds
the same arrays (docs/LEGACY_LAYERS.md); these keep the cell and its
projection one cell, under ``DynamicRNN``'s loop and masking, as the TF1
code had them.
"""

from __future__ import annotations

from typing import Callable, Optional

import tensorflow as tf

from tf1_train.tf2.layers import glorot_uniform, read, zeros
from tf1_train.tf2.rnn_cells import _Cell


class _Projection(_Cell):
    """A cell and a dense layer: the state and zero state are the cell's."""

    def __init__(self, cell: _Cell, size: int, activation: Optional[Callable]):
        self.cell, self.size, self.activation = cell, size, activation

    def zero_state(self, batch, dtype):
        return self.cell.zero_state(batch, dtype)

    def _dense(self, name, params, depth):
        self.kernel = params.create(f"{name}/kernel", [depth, self.size], glorot_uniform)
        self.bias = params.create(f"{name}/bias", [self.size], zeros)

    def _project(self, x):
        y = tf.nn.bias_add(tf.matmul(x, read(self.kernel, x)), read(self.bias, x))
        return self.activation(y) if self.activation else y


class OutputProjectionWrapper(_Projection):
    """``OutputProjectionWrapper(cell, output_size, activation=None)``."""

    scope = "output_projection_wrapper"

    def __init__(self, cell: _Cell, output_size: int, activation: Optional[Callable] = None):
        if output_size < 1:
            raise ValueError(f"Parameter output_size must be > 0: {output_size}.")
        super().__init__(cell, output_size, activation)
        self.units = output_size

    def build(self, params, prefix, depth):
        name = self._under(prefix)
        self._dense(name, params, self.cell.build(params, name, depth))
        return self.size

    def __call__(self, x, state):
        out, new = self.cell(x, state)
        return self._project(out), new


class InputProjectionWrapper(_Projection):
    """``InputProjectionWrapper(cell, num_proj, activation=None)``."""

    scope = "input_projection_wrapper"

    def __init__(self, cell: _Cell, num_proj: int, activation: Optional[Callable] = None):
        super().__init__(cell, num_proj, activation)
        self.units = cell.units

    def build(self, params, prefix, depth):
        name = self._under(prefix)
        self._dense(name, params, depth)
        return self.cell.build(params, name, self.size)

    def __call__(self, x, state):
        return self.cell(self._project(x), state)
