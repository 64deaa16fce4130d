"""tf.contrib.rnn's research cells, as TF 1.15 defined them: ``NASCell``
(the cell Neural Architecture Search found, arXiv:1611.01578), ``UGRNNCell``
and ``IntersectionRNNCell`` (arXiv:1611.09913), ``IndRNNCell`` and its gated
forms ``IndyGRUCell`` and ``IndyLSTMCell`` (arXiv:1803.04831,
arXiv:1903.08023).

Papers' reference code and the language models that compared them built on
these. Each was a handful of core ops (matmuls, splits, activations) on
variables of its own, nothing contrib-only, so they are those ops again on
TF1's variable names and initializers:

- ``NASCell``, ``IndRNNCell``, ``IndyGRUCell``, ``IndyLSTMCell`` are layer
  cells whose ``build`` creates the variables (``recurrent_kernel``,
  ``kernel``, ``bias``, ``projection_weights``; ``kernel_w``, ``kernel_u``
  uniform in [-1, 1], ``bias``; the Indy GRU's under ``gates/`` and
  ``candidate/``, its gate bias ones) under ``nas_cell/``, ``ind_rnn_cell/``,
  ``indy_gru_cell/``, ``indy_lstm_cell/``;
- ``UGRNNCell`` and ``IntersectionRNNCell`` call TF1's ``_Linear``
  (``kernel``, ``bias`` zeros) on ``[inputs, state]`` under the cell's
  scope with its ``initializer``, the first layer's input projection under
  ``in_projection/``; their variables come from ``get_variable`` during the
  call and share by the scope's reuse.

The base classes are TensorFlow's own legacy cells
(tf1_train.compat.rnn_cell), so scopes, reuse and towers' custom getters
behave as for the core cells. tests/test_compat_contrib_research_cells.py
holds each to its equations in float64 NumPy.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.keras.engine.input_spec import InputSpec

from tf1_train.compat import rnn_cell
from tf1_train.compat._contrib_attention import _linear  # TF1's _Linear, with its bias

v1 = tf.compat.v1


def _input_depth(inputs_shape) -> int:
    depth = tf.TensorShape(inputs_shape).with_rank(2)[1]
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
    return depth


class _UnitSizes:
    """A cell whose state and output have ``num_units`` features."""

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units


class NASCell(rnn_cell._impl.LayerRNNCell):
    """``tf.contrib.rnn.NASCell(num_units, num_proj=None, use_bias=False)``:
    eight branches of ``x kernel`` and ``m recurrent_kernel`` combined as the
    search found them; state (c, m), m projected when ``num_proj``."""

    _NAS_BASE = 8

    def __init__(self, num_units, num_proj=None, use_bias=False, reuse=None, **kwargs):
        super().__init__(_reuse=reuse, **kwargs)
        self._num_units = num_units
        self._num_proj = num_proj
        self._use_bias = use_bias
        self._output_size = num_proj if num_proj is not None else num_units

    @property
    def state_size(self):
        return rnn_cell.LSTMStateTuple(self._num_units, self._output_size)

    @property
    def output_size(self) -> int:
        return self._output_size

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        width = self._NAS_BASE * self._num_units
        self.recurrent_kernel = self.add_weight("recurrent_kernel", [self._output_size, width])
        self.kernel = self.add_weight("kernel", [depth, width])
        if self._use_bias:
            self.bias = self.add_weight("bias", [width], initializer=v1.zeros_initializer())
        if self._num_proj is not None:
            self.projection_weights = self.add_weight(
                "projection_weights", [self._num_units, self._num_proj]
            )
        self.built = True

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        sigmoid, tanh, relu = tf.sigmoid, tf.tanh, tf.nn.relu
        c_prev, m_prev = state
        m = tf.matmul(m_prev, self.recurrent_kernel)
        x = tf.matmul(inputs, self.kernel)
        if self._use_bias:
            m = tf.nn.bias_add(m, self.bias)
        m = tf.split(m, self._NAS_BASE, axis=1)
        x = tf.split(x, self._NAS_BASE, axis=1)
        layer1 = (
            sigmoid(x[0] + m[0]), relu(x[1] + m[1]), sigmoid(x[2] + m[2]), relu(x[3] * m[3]),
            tanh(x[4] + m[4]), sigmoid(x[5] + m[5]), tanh(x[6] + m[6]), sigmoid(x[7] + m[7]),
        )  # fmt: skip
        l2_0 = tanh(layer1[0] * layer1[1])
        l2_1 = tanh(layer1[2] + layer1[3])
        l2_2 = tanh(layer1[4] * layer1[5])
        l2_3 = sigmoid(layer1[6] + layer1[7])
        new_c = tanh(l2_0 + c_prev) * l2_1  # the cell injected into the second layer
        new_m = tanh(new_c * tanh(l2_2 + l2_3))
        if self._num_proj is not None:
            new_m = tf.matmul(new_m, self.projection_weights)
        return new_m, rnn_cell.LSTMStateTuple(new_c, new_m)


class UGRNNCell(_UnitSizes, rnn_cell.RNNCell):
    """``tf.contrib.rnn.UGRNNCell(num_units)``: one update gate g between
    the old state and a candidate, ``g * state + (1 - g) * activation(c)``,
    g = sigmoid(. + forget_bias)."""

    def __init__(self, num_units, initializer=None, forget_bias=1.0, activation=tf.tanh,
                 reuse=None):  # fmt: skip
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._initializer = initializer
        self._forget_bias = forget_bias
        self._activation = activation

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        _input_depth(inputs.shape)
        with v1.variable_scope(v1.get_variable_scope(), initializer=self._initializer):
            g_act, c_act = tf.split(_linear([inputs, state], 2 * self._num_units), 2, axis=1)
            c = self._activation(c_act)
            g = tf.sigmoid(g_act + self._forget_bias)
            new_state = g * state + (1.0 - g) * c
        return new_state, new_state


class IntersectionRNNCell(_UnitSizes, rnn_cell.RNNCell):
    """``tf.contrib.rnn.IntersectionRNNCell(num_units, num_in_proj=None)``:
    two coupled gates, one through time (the state), one through depth (the
    output, mixed with the input); inputs must have ``num_units`` features
    or be projected to them (``num_in_proj``, the first layer of a stack)."""

    def __init__(self, num_units, num_in_proj=None, initializer=None, forget_bias=1.0,
                 y_activation=tf.nn.relu, reuse=None):  # fmt: skip
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._initializer = initializer
        self._forget_bias = forget_bias
        self._num_input_proj = num_in_proj
        self._y_activation = y_activation

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        n = self._num_units
        with v1.variable_scope(v1.get_variable_scope(), initializer=self._initializer):
            if _input_depth(inputs.shape) != n:
                if not self._num_input_proj:
                    raise ValueError(
                        "Must have input size == output size for Intersection RNN. To fix, "
                        "num_in_proj should be set to num_units at cell init."
                    )
                with v1.variable_scope("in_projection"):
                    inputs = _linear([inputs], n)
            matrix = _linear([inputs, state], 4 * n)
            gh_act, h_act, gy_act, y_act = tf.split(matrix, 4, axis=1)
            h = tf.tanh(h_act)
            y = self._y_activation(y_act)
            gh = tf.sigmoid(gh_act + self._forget_bias)
            gy = tf.sigmoid(gy_act + self._forget_bias)
            new_state = gh * state + (1.0 - gh) * h  # through time
            new_y = gy * inputs + (1.0 - gy) * y  # through depth
        return new_y, new_state


class _IndCell(_UnitSizes, rnn_cell._impl.LayerRNNCell):
    """What the Ind cells share: 2-D inputs, ``num_units``, the activation
    (tanh by default), and the recurrent weights ``kernel_u``: one vector
    per gate, uniform in [-1, 1], each unit seeing only its own state."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None):  # fmt: skip
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activation or tf.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def _weights(self, prefix: str, depth: int, gates: int, bias_init):
        """(kernel_w, kernel_u, bias) for ``gates`` gates, in TF1's order."""
        n = gates * self._num_units
        w = self.add_weight(f"{prefix}kernel_w", [depth, n], initializer=self._kernel_initializer)
        u = self.add_weight(f"{prefix}kernel_u", [1, n],
                            initializer=v1.random_uniform_initializer(-1, 1))  # fmt: skip
        b = self.add_weight(f"{prefix}bias", [n], initializer=self._bias_initializer or bias_init)
        return w, u, b


class IndRNNCell(_IndCell):
    """``tf.contrib.rnn.IndRNNCell(num_units)``:
    ``activation(x kernel_w + kernel_u * state + bias)``."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None):
        super().__init__(num_units, activation, reuse, name=name, dtype=dtype)

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        self._kernel_w, self._kernel_u, self._bias = self._weights(
            "", depth, 1, v1.zeros_initializer()
        )
        self.built = True

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        gate_inputs = tf.matmul(inputs, self._kernel_w) + state * self._kernel_u
        output = self._activation(tf.nn.bias_add(gate_inputs, self._bias))
        return output, output


class IndyGRUCell(_IndCell):
    """``tf.contrib.rnn.IndyGRUCell(num_units)``: GRUCell with the recurrent
    matrices diagonal; gates r, u (bias ones unless ``bias_initializer``),
    the candidate from ``r * state``."""

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        ones = v1.constant_initializer(1.0)
        self._gate = self._weights("gates/", depth, 2, ones)
        # TF1 named the candidate's input matrix "kernel", not "kernel_w".
        n = self._num_units
        init = self._kernel_initializer
        self._candidate_w = self.add_weight("candidate/kernel", [depth, n], initializer=init)
        self._candidate_u = self.add_weight(
            "candidate/kernel_u", [1, n], initializer=v1.random_uniform_initializer(-1, 1)
        )
        self._candidate_b = self.add_weight(
            "candidate/bias", [n], initializer=self._bias_initializer or v1.zeros_initializer()
        )
        self.built = True

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        w, u, b = self._gate
        gate_inputs = tf.nn.bias_add(tf.matmul(inputs, w) + tf.tile(state, [1, 2]) * u, b)
        r, z = tf.split(tf.sigmoid(gate_inputs), 2, axis=1)
        candidate = tf.matmul(inputs, self._candidate_w) + (r * state) * self._candidate_u
        c = self._activation(tf.nn.bias_add(candidate, self._candidate_b))
        new_h = z * state + (1 - z) * c
        return new_h, new_h


class IndyLSTMCell(_IndCell):
    """``tf.contrib.rnn.IndyLSTMCell(num_units, forget_bias=1.0)``:
    BasicLSTMCell with the recurrent matrices diagonal (gates i, j, f, o)."""

    def __init__(self, num_units, forget_bias=1.0, activation=None, reuse=None,
                 kernel_initializer=None, bias_initializer=None, name=None,
                 dtype=None):  # fmt: skip
        super().__init__(num_units, activation, reuse, kernel_initializer, bias_initializer,
                         name, dtype)  # fmt: skip
        self._forget_bias = forget_bias

    @property
    def state_size(self):
        return rnn_cell.LSTMStateTuple(self._num_units, self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        self._kernel_w, self._kernel_u, self._bias = self._weights(
            "", depth, 4, v1.zeros_initializer()
        )
        self.built = True

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        c, h = state
        gate_inputs = tf.matmul(inputs, self._kernel_w) + tf.tile(h, [1, 4]) * self._kernel_u
        i, j, f, o = tf.split(tf.nn.bias_add(gate_inputs, self._bias), 4, axis=1)
        forget_bias = tf.constant(self._forget_bias, dtype=f.dtype)
        new_c = c * tf.sigmoid(f + forget_bias) + tf.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * tf.sigmoid(o)
        return new_h, rnn_cell.LSTMStateTuple(new_c, new_h)


KEPT = {
    c.__name__: c
    for c in (NASCell, UGRNNCell, IntersectionRNNCell, IndRNNCell, IndyGRUCell, IndyLSTMCell)
}
