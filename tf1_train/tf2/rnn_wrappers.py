"""contrib.rnn's ``OutputProjectionWrapper``, ``InputProjectionWrapper`` and
``EmbeddingWrapper`` from TF1 for a TF2 twin: TF1's dense layer after
(before) the wrapped cell, or its embedding lookup before it, on TF1's names
(``output_projection_wrapper/kernel``, ``bias``; ``embedding_wrapper/embedding``;
the cell's variables under the same scope), so a twin restores the TF1
checkpoint as it is.

A Keras port needs none of this: ``Dense`` on the layer's sequence holds
the same arrays (docs/LEGACY_LAYERS.md); these keep the cell and its
projection one cell, under ``DynamicRNN``'s loop and masking, as the TF1
code had them.
"""

from __future__ import annotations

import math
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


def _uniform_sqrt3(shape, seed) -> tf.Tensor:
    """TF1's default embedding initializer: uniform in +-sqrt(3), variance 1."""
    return tf.random.stateless_uniform(shape, seed, -math.sqrt(3), math.sqrt(3))


class EmbeddingWrapper(_Cell):
    """``EmbeddingWrapper(cell, embedding_classes, embedding_size)``: each
    step's ids (``[batch, 1]`` or ``[batch]``) looked up in
    ``embedding_wrapper/embedding``, then the cell. The ids are integers, so
    the state is float32 unless ``dtype`` says otherwise (TF1's
    ``dynamic_rnn(..., dtype=)``). TF1 pinned the lookup and the cell to
    ``/cpu:0``; a twin runs them where its replica runs."""

    scope = "embedding_wrapper"

    def __init__(self, cell: _Cell, embedding_classes: int, embedding_size: int,
                 dtype: tf.DType = tf.float32):  # fmt: skip
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(
                "Both embedding_classes and embedding_size must be > 0: "
                f"{embedding_classes}, {embedding_size}."
            )
        self.cell, self.units, self.dtype = cell, cell.units, dtype
        self.shape = [embedding_classes, embedding_size]

    def zero_state(self, batch, dtype):
        return self.cell.zero_state(batch, self.dtype if dtype.is_integer else dtype)

    def build(self, params, prefix, depth):
        name = self._under(prefix)
        self.embedding = params.create(f"{name}/embedding", self.shape, _uniform_sqrt3)
        return self.cell.build(params, name, self.shape[1])

    def __call__(self, x, state):
        table = read(self.embedding, tf.nest.flatten(state)[0])
        return self.cell(tf.nn.embedding_lookup(table, tf.reshape(x, [-1])), state)
