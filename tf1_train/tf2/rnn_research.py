"""contrib.rnn's research cells from TF1 for a TF2 twin: ``NASCell``,
``UGRNNCell``, ``IntersectionRNNCell``, ``IndRNNCell``, ``IndyGRUCell`` and
``IndyLSTMCell``, computing what tf1_train.compat computes for the TF1 model
(tf1_train/compat/_contrib_research_cells.py, TF 1.15's formulas), op for op
in the same order, on TF1's variable names:

- ``nas_cell/``: ``kernel``, ``recurrent_kernel``, ``bias`` (``use_bias``),
  ``projection_weights`` (``num_proj``); state ``(c, m)``, m the projected
  output;
- ``ugrnn_cell/`` and ``intersection_rnn_cell/``: TF1's ``_Linear`` on
  ``[x, h]`` (``kernel``, ``bias``), the intersection cell's input projection
  under ``in_projection/``;
- ``ind_rnn_cell/``, ``indy_lstm_cell/``: ``kernel_w``, ``kernel_u`` (one
  recurrent weight per unit and gate), ``bias``; ``indy_gru_cell/`` the same
  under ``gates/`` and ``candidate/``, the candidate's input matrix named
  ``kernel`` as TF1 named it.

Initial values follow TF1's in kind (Glorot-uniform matrices, ``kernel_u``
uniform in [-1, 1], zero biases, the Indy GRU's gate bias at 1), seeded by
name: a twin starts from the TF1 checkpoint to train the same numbers.
"""

from __future__ import annotations

from typing import Callable, Optional

import tensorflow as tf

from tf1_train.tf2.layers import Params, glorot_uniform, ones, read, zeros
from tf1_train.tf2.rnn_cells import State, _Cell

_NAS_BASE = 8


def _uniform_1(shape, seed) -> tf.Tensor:
    """TF1's ``random_uniform_initializer(-1, 1)`` for ``kernel_u``."""
    return tf.random.stateless_uniform(list(shape), seed, -1.0, 1.0)


class NASCell(_Cell):
    """``NASCell(num_units, num_proj=None, use_bias=False)``."""

    scope = "nas_cell"

    def __init__(self, num_units: int, num_proj: Optional[int] = None, use_bias: bool = False):
        super().__init__(num_units)
        self.num_proj, self.use_bias = num_proj, use_bias
        self.out = num_proj if num_proj is not None else num_units

    def build(self, params: Params, prefix: str, depth: int) -> int:
        name, width = self._under(prefix), _NAS_BASE * self.units
        self.recurrent_kernel = params.create(f"{name}/recurrent_kernel", [self.out, width],
                                              glorot_uniform)  # fmt: skip
        self.kernel = params.create(f"{name}/kernel", [depth, width], glorot_uniform)
        if self.use_bias:
            self.bias = params.create(f"{name}/bias", [width], zeros)
        if self.num_proj is not None:
            shape = [self.units, self.num_proj]
            self.projection = params.create(f"{name}/projection_weights", shape, glorot_uniform)
        return self.out

    def zero_state(self, batch, dtype) -> State:
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, self.out], dtype))

    def __call__(self, x, state: State):
        sigmoid, tanh, relu = tf.sigmoid, tf.tanh, tf.nn.relu
        c_prev, m_prev = state
        m = tf.matmul(m_prev, read(self.recurrent_kernel, x))
        xk = tf.matmul(x, read(self.kernel, x))
        if self.use_bias:
            m = tf.nn.bias_add(m, read(self.bias, x))
        m, xk = tf.split(m, _NAS_BASE, axis=1), tf.split(xk, _NAS_BASE, axis=1)
        layer1 = (
            sigmoid(xk[0] + m[0]), relu(xk[1] + m[1]), sigmoid(xk[2] + m[2]), relu(xk[3] * m[3]),
            tanh(xk[4] + m[4]), sigmoid(xk[5] + m[5]), tanh(xk[6] + m[6]), sigmoid(xk[7] + m[7]),
        )  # fmt: skip
        l2_0 = tanh(layer1[0] * layer1[1])
        l2_1 = tanh(layer1[2] + layer1[3])
        l2_2 = tanh(layer1[4] * layer1[5])
        l2_3 = sigmoid(layer1[6] + layer1[7])
        new_c = tanh(l2_0 + c_prev) * l2_1
        new_m = tanh(new_c * tanh(l2_2 + l2_3))
        if self.num_proj is not None:
            new_m = tf.matmul(new_m, read(self.projection, x))
        return new_m, (new_c, new_m)


class UGRNNCell(_Cell):
    """``UGRNNCell(num_units, forget_bias=1.0, activation=tf.tanh)``:
    ``g * h + (1 - g) * activation(c)``, g = sigmoid(. + forget_bias)."""

    scope = "ugrnn_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0,
                 activation: Callable = tf.tanh):  # fmt: skip
        super().__init__(num_units)
        self.forget_bias, self.activation = forget_bias, activation

    def build(self, params, prefix, depth):
        self.kernel, self.bias = self._weights(params, self._under(prefix), depth, 2 * self.units)
        return self.units

    def __call__(self, x, state: State):
        h = state[0]
        g_act, c_act = tf.split(self._affine(x, h, self.kernel, self.bias), 2, axis=1)
        c = self.activation(c_act)
        g = tf.sigmoid(g_act + self.forget_bias)
        new = g * h + (1.0 - g) * c
        return new, (new,)


class IntersectionRNNCell(_Cell):
    """``IntersectionRNNCell(num_units, num_in_proj=None, forget_bias=1.0,
    y_activation=tf.nn.relu)``: a gate through time (the state) and one
    through depth (the output, mixed with the input); an input of another
    width than ``num_units`` needs ``num_in_proj`` (TF1's ValueError)."""

    scope = "intersection_rnn_cell"

    def __init__(self, num_units: int, num_in_proj: Optional[int] = None,
                 forget_bias: float = 1.0, y_activation: Callable = tf.nn.relu):  # fmt: skip
        super().__init__(num_units)
        self.num_in_proj, self.forget_bias = num_in_proj, forget_bias
        self.y_activation = y_activation
        self.in_kernel = None

    def build(self, params, prefix, depth):
        name, n = self._under(prefix), self.units
        if depth != n:
            if not self.num_in_proj:
                raise ValueError(
                    "Must have input size == output size for Intersection RNN. To fix, "
                    "num_in_proj should be set to num_units at cell init."
                )
            self.in_kernel = params.create(f"{name}/in_projection/kernel", [depth, n],
                                           glorot_uniform)  # fmt: skip
            self.in_bias = params.create(f"{name}/in_projection/bias", [n], zeros)
        self.kernel, self.bias = self._weights(params, name, n, 4 * n)
        return n

    def __call__(self, x, state: State):
        h = state[0]
        if self.in_kernel is not None:
            x = tf.nn.bias_add(tf.matmul(x, read(self.in_kernel, x)), read(self.in_bias, x))
        matrix = self._affine(x, h, self.kernel, self.bias)
        gh_act, h_act, gy_act, y_act = tf.split(matrix, 4, axis=1)
        candidate, y = tf.tanh(h_act), self.y_activation(y_act)
        gh = tf.sigmoid(gh_act + self.forget_bias)
        gy = tf.sigmoid(gy_act + self.forget_bias)
        new = gh * h + (1.0 - gh) * candidate
        return gy * x + (1.0 - gy) * y, (new,)


class _IndCell(_Cell):
    """``kernel_w`` on the input, ``kernel_u`` one recurrent weight per unit."""

    def __init__(self, num_units: int, activation: Optional[Callable] = None):
        super().__init__(num_units)
        self.activation = activation or tf.tanh

    def _ind_weights(self, params, name, depth, gates, bias_init):
        n = gates * self.units
        return (params.create(f"{name}kernel_w", [depth, n], glorot_uniform),
                params.create(f"{name}kernel_u", [1, n], _uniform_1),
                params.create(f"{name}bias", [n], bias_init))  # fmt: skip


class IndRNNCell(_IndCell):
    """``IndRNNCell(num_units, activation=tf.tanh)``:
    ``activation(x kernel_w + kernel_u * h + bias)``."""

    scope = "ind_rnn_cell"

    def build(self, params, prefix, depth):
        self.w, self.u, self.b = self._ind_weights(params, f"{self._under(prefix)}/", depth, 1,
                                                   zeros)  # fmt: skip
        return self.units

    def __call__(self, x, state: State):
        gate_inputs = tf.matmul(x, read(self.w, x)) + state[0] * read(self.u, x)
        out = self.activation(tf.nn.bias_add(gate_inputs, read(self.b, x)))
        return out, (out,)


class IndyGRUCell(_IndCell):
    """``IndyGRUCell(num_units, activation=tf.tanh)``: GRUCell's formula with
    diagonal recurrent weights; gate bias ones."""

    scope = "indy_gru_cell"

    def build(self, params, prefix, depth):
        name, n = self._under(prefix), self.units
        self.gate = self._ind_weights(params, f"{name}/gates/", depth, 2, ones)
        self.candidate = (params.create(f"{name}/candidate/kernel", [depth, n], glorot_uniform),
                          params.create(f"{name}/candidate/kernel_u", [1, n], _uniform_1),
                          params.create(f"{name}/candidate/bias", [n], zeros))  # fmt: skip
        return n

    def __call__(self, x, state: State):
        h = state[0]
        w, u, b = (read(v, x) for v in self.gate)
        gate_inputs = tf.nn.bias_add(tf.matmul(x, w) + tf.tile(h, [1, 2]) * u, b)
        r, z = tf.split(tf.sigmoid(gate_inputs), 2, axis=1)
        cw, cu, cb = (read(v, x) for v in self.candidate)
        c = self.activation(tf.nn.bias_add(tf.matmul(x, cw) + (r * h) * cu, cb))
        new = z * h + (1 - z) * c
        return new, (new,)


class IndyLSTMCell(_IndCell):
    """``IndyLSTMCell(num_units, forget_bias=1.0, activation=tf.tanh)``:
    BasicLSTMCell's formula with diagonal recurrent weights; state (c, h)."""

    scope = "indy_lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0,
                 activation: Optional[Callable] = None):  # fmt: skip
        super().__init__(num_units, activation)
        self.forget_bias = forget_bias

    def build(self, params, prefix, depth):
        self.w, self.u, self.b = self._ind_weights(params, f"{self._under(prefix)}/", depth, 4,
                                                   zeros)  # fmt: skip
        return self.units

    def zero_state(self, batch, dtype) -> State:
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, self.units], dtype))

    def __call__(self, x, state: State):
        c, h = state
        gate_inputs = tf.matmul(x, read(self.w, x)) + tf.tile(h, [1, 4]) * read(self.u, x)
        i, j, f, o = tf.split(tf.nn.bias_add(gate_inputs, read(self.b, x)), 4, axis=1)
        forget = tf.sigmoid(f + tf.constant(self.forget_bias, f.dtype))
        new_c = c * forget + tf.sigmoid(i) * self.activation(j)
        new_h = self.activation(new_c) * tf.sigmoid(o)
        return new_h, (new_c, new_h)
