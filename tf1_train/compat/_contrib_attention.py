"""tf.contrib.rnn's ``AttentionCellWrapper``, as TF 1.15 defined it.

Magenta's attention RNN (``events_rnn_graph``'s ``attn_length``) and other
sequence models wrapped their top cell in it: each step attends over the
cell's last ``attn_length`` outputs (arXiv:1601.06733). It was core ops
around the wrapped cell, none of them contrib's, so it is those ops again,
on its variable names: under the wrapper's scope ``kernel``/``bias`` (the
input projection of ``[inputs, attns]``), the wrapped cell's own,
``attention/attn_w``, ``attention/attn_v``, ``attention/kernel``/``bias``
(the query projection) and ``attn_output_projection/kernel``/``bias``. The
variables come from ``get_variable`` during the call, as TF1's ``_Linear``
made them on the first call, so they share by reuse across the steps.
"""

from __future__ import annotations

from typing import List

import tensorflow as tf
from absl import logging

from tf1_train.compat import rnn_cell

v1 = tf.compat.v1


def _linear(args: List[tf.Tensor], output_size: int) -> tf.Tensor:
    """TF1's ``_Linear``: ``concat(args) kernel + bias`` under the current
    scope (the scope's default initializer for the kernel, zeros for the bias)."""
    x = args[0] if len(args) == 1 else tf.concat(args, 1)
    kernel = v1.get_variable("kernel", [x.shape[-1], output_size], x.dtype)
    bias = v1.get_variable("bias", [output_size], x.dtype, v1.constant_initializer(0.0))
    return tf.nn.bias_add(tf.matmul(x, kernel), bias)


class AttentionCellWrapper(rnn_cell.RNNCell):
    """``tf.contrib.rnn.AttentionCellWrapper(cell, attn_length)``: the state
    is (the cell's state, the last attention read, the last ``attn_length``
    outputs); each step projects ``[inputs, attns]`` to the input size, runs
    the cell, attends over the window with the cell's new state as query (a
    1x1 convolution of the window, ``v . tanh(features + query)``, softmax),
    projects ``[cell output, attention read]`` to the output, and slides the
    window by that output."""

    def __init__(self, cell, attn_length, attn_size=None, attn_vec_size=None, input_size=None,
                 state_is_tuple=True, reuse=None):  # fmt: skip
        super().__init__(_reuse=reuse)
        rnn_cell._impl.assert_like_rnncell("cell", cell)
        if tf.nest.is_nested(cell.state_size) and not state_is_tuple:
            raise ValueError(
                "Cell returns tuple of states, but the flag state_is_tuple is not set. "
                f"State size is: {cell.state_size}"
            )
        if attn_length <= 0:
            raise ValueError(f"attn_length should be greater than zero, got {attn_length}")
        if not state_is_tuple:
            logging.warning("%s: Using a concatenated state is slower (TF1 said so too).", self)
        self._cell = cell
        self._state_is_tuple = state_is_tuple
        self._attn_length = attn_length
        self._attn_size = attn_size if attn_size is not None else cell.output_size
        self._attn_vec_size = attn_vec_size if attn_vec_size is not None else self._attn_size
        self._input_size = input_size

    @property
    def state_size(self):
        size = (self._cell.state_size, self._attn_size, self._attn_size * self._attn_length)
        return size if self._state_is_tuple else sum(size)

    @property
    def output_size(self):
        return self._attn_size

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        if self._state_is_tuple:
            state, attns, attn_states = state
        else:
            widths = [self._cell.state_size, self._attn_size, self._attn_size * self._attn_length]
            state, attns, attn_states = tf.split(state, widths, axis=1)
        attn_states = tf.reshape(attn_states, [-1, self._attn_length, self._attn_size])
        input_size = self._input_size or inputs.shape[1]
        inputs = _linear([inputs, attns], input_size)
        cell_output, new_state = self._cell(inputs, state)
        query = tf.concat(tf.nest.flatten(new_state), 1) if self._state_is_tuple else new_state
        new_attns, new_attn_states = self._attention(query, attn_states)
        with v1.variable_scope("attn_output_projection"):
            output = _linear([cell_output, new_attns], self._attn_size)
        new_attn_states = tf.concat([new_attn_states, tf.expand_dims(output, 1)], 1)
        new_attn_states = tf.reshape(new_attn_states, [-1, self._attn_length * self._attn_size])
        new_state = (new_state, new_attns, new_attn_states)
        return output, new_state if self._state_is_tuple else tf.concat(list(new_state), 1)

    def _attention(self, query, attn_states):
        with v1.variable_scope("attention"):
            k = v1.get_variable("attn_w", [1, 1, self._attn_size, self._attn_vec_size])
            v = v1.get_variable("attn_v", [self._attn_vec_size])
            hidden = tf.reshape(attn_states, [-1, self._attn_length, 1, self._attn_size])
            hidden_features = tf.nn.conv2d(hidden, k, [1, 1, 1, 1], "SAME")
            y = tf.reshape(_linear([query], self._attn_vec_size), [-1, 1, 1, self._attn_vec_size])
            a = tf.nn.softmax(tf.reduce_sum(v * tf.tanh(hidden_features + y), [2, 3]))
            d = tf.reduce_sum(tf.reshape(a, [-1, self._attn_length, 1, 1]) * hidden, [1, 2])
            new_attns = tf.reshape(d, [-1, self._attn_size])
            return new_attns, attn_states[:, 1:, :]
