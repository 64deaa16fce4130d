"""TF1's recurrent cells and ``dynamic_rnn`` in TF2, in TF1's layout and
under TF1's variable names, for a user's TF2 twin (``--tf2_model``).

A TF2 twin must hold the TF1 model's variables under their checkpoint names
(tf1_train/tf2/models.py); Keras' ``LSTM`` and ``GRU`` cannot: they split a
TF1 cell's one ``concat([x, h])`` kernel in two and order the gates
differently (tf1_train/port/rnn_weights.py, for a Keras port). These cells
compute TF1's formulas on TF1's arrays instead, so a checkpoint of either
entry point restores into the other:

- ``LSTMCell`` / ``BasicLSTMCell``: ``i, j, f, o = split(concat([x, h]) K + b)``,
  ``c = c sigmoid(f + forget_bias) + sigmoid(i) tanh(j)``, ``h = tanh(c) sigmoid(o)``;
  LSTMCell's peepholes, ``cell_clip`` and projection (``num_proj``,
  ``proj_clip``) too;
- ``GRUCell``: ``r, u = split(sigmoid(concat([x, h]) G + g))``,
  ``c = tanh(concat([x, r h]) C + b)``, ``h = u h + (1 - u) c``;
- ``BasicRNNCell``: ``h = tanh(concat([x, h]) K + b)``;
- tf.contrib.rnn's ``LSTMBlockCell`` (LSTMCell's formula and names),
  ``GRUBlockCell`` (GRUCell's formula on ``w_ru``, ``b_ru``, ``w_c``, ``b_c``)
  and ``LayerNormBasicLSTMCell`` (BasicLSTMCell's with each gate and the new
  cell state layer-normalized; no recurrent dropout);
- ``LSTMBlockFusedCell`` runs LSTMCell's formula over a time-major input
  under the fused cell's names, ``reverse=True`` as ``TimeReversedFusedRNN``;
- ``MultiRNNCell`` stacks them (``multi_rnn_cell/cell_<i>/``), and
  ``DynamicRNN`` runs one over a ``[batch, time, depth]`` input as
  ``tf.nn.dynamic_rnn`` does, ``sequence_length`` included: outputs past a
  length are zeros and the state stops there. ``static_rnn`` made the same
  variables and numbers (its outputs: ``tf.unstack(outputs, axis=1)``);
  ``BidirectionalDynamicRNN`` is ``bidirectional_dynamic_rnn``.

Initial values follow the cells' TF1 defaults in kind (Glorot-uniform
kernels, a GRU's gate bias at 1), seeded by name as tf1_train's other TF2
layers are; they are not the TF1 graph's draws, so a twin starts from a TF1
checkpoint (``--init_checkpoint``) to train the same numbers.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train.tf2.layers import Params, glorot_uniform, ones, read, zeros

State = Tuple[tf.Tensor, ...]


class _Cell:
    """A TF1 cell: ``scope`` is its default variable-scope name."""

    scope = ""

    def __init__(self, num_units: int):
        self.units = num_units

    def build(self, params: Params, prefix: str, depth: int) -> int:
        """Creates the variables under ``prefix``/``scope``; the output depth."""
        raise NotImplementedError

    def zero_state(self, batch, dtype) -> State:
        return (tf.zeros([batch, self.units], dtype),)

    def _under(self, prefix: str) -> str:
        """The cell's variable scope under ``prefix`` (none: at the top)."""
        return f"{prefix}/{self.scope}" if prefix else self.scope

    def _weights(self, params, name, depth, columns, bias_init=zeros):
        """A TF1 cell's ``name/kernel`` for ``concat([x, h])`` and ``name/bias``."""
        kernel = params.create(f"{name}/kernel", [depth + self.units, columns], glorot_uniform)
        return kernel, params.create(f"{name}/bias", [columns], bias_init)

    def _affine(self, x, h, kernel, bias):
        return tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), read(kernel, x)), read(bias, x))


class BasicRNNCell(_Cell):
    scope = "basic_rnn_cell"

    def build(self, params, prefix, depth):
        self.kernel, self.bias = self._weights(params, self._under(prefix), depth, self.units)
        return self.units

    def __call__(self, x, state: State):
        h = tf.tanh(self._affine(x, state[0], self.kernel, self.bias))
        return h, (h,)


class BasicLSTMCell(_Cell):
    """``tf.nn.rnn_cell.BasicLSTMCell`` (state ``(c, h)``)."""

    scope = "basic_lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0):
        super().__init__(num_units)
        self.forget_bias = forget_bias

    def build(self, params, prefix, depth):
        name, columns = self._under(prefix), 4 * self.units
        self.kernel, self.bias = self._weights(params, name, depth, columns)
        return self.units

    def zero_state(self, batch, dtype):
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, self.units], dtype))

    def __call__(self, x, state: State):
        c, h = state
        i, j, f, o = tf.split(self._affine(x, h, self.kernel, self.bias), 4, axis=1)
        forget = tf.sigmoid(f + tf.constant(self.forget_bias, f.dtype))
        c = c * forget + tf.sigmoid(i) * tf.tanh(j)
        h = tf.tanh(c) * tf.sigmoid(o)
        return h, (c, h)


class LSTMCell(BasicLSTMCell):
    """``tf.nn.rnn_cell.LSTMCell``: BasicLSTMCell's formula under another
    scope name, with its options: peepholes (``w_f_diag``, ``w_i_diag``,
    ``w_o_diag``), ``cell_clip`` on the cell state, and a projection of the
    output to ``num_proj`` (``projection/kernel``, then ``proj_clip``), the
    projected output being the state's ``h`` fed back."""

    scope = "lstm_cell"

    def __init__(self, num_units: int, use_peepholes: bool = False,
                 cell_clip: Optional[float] = None, num_proj: Optional[int] = None,
                 proj_clip: Optional[float] = None, forget_bias: float = 1.0):  # fmt: skip
        super().__init__(num_units, forget_bias)
        self.peepholes, self.cell_clip = use_peepholes, cell_clip
        self.num_proj, self.proj_clip = num_proj, proj_clip

    def build(self, params, prefix, depth):
        name, n, out = self._under(prefix), self.units, self.num_proj or self.units
        self.kernel = params.create(f"{name}/kernel", [depth + out, 4 * n], glorot_uniform)
        self.bias = params.create(f"{name}/bias", [4 * n], zeros)
        self.diag = {g: params.create(f"{name}/w_{g}_diag", [n], glorot_uniform)
                     for g in ("f", "i", "o") if self.peepholes}  # fmt: skip
        if self.num_proj:
            self.projection = params.create(f"{name}/projection/kernel", [n, out], glorot_uniform)
        return out

    def zero_state(self, batch, dtype):
        out = self.num_proj or self.units
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, out], dtype))

    def __call__(self, x, state: State):
        c, h = state
        i, j, f, o = tf.split(self._affine(x, h, self.kernel, self.bias), 4, axis=1)
        fb = tf.constant(self.forget_bias, f.dtype)
        if self.peepholes:
            w_f, w_i, w_o = (read(self.diag[g], x) for g in ("f", "i", "o"))
            c = tf.sigmoid(f + fb + w_f * c) * c + tf.sigmoid(i + w_i * c) * tf.tanh(j)
        else:
            c = tf.sigmoid(f + fb) * c + tf.sigmoid(i) * tf.tanh(j)
        if self.cell_clip is not None:
            c = tf.clip_by_value(c, -self.cell_clip, self.cell_clip)
        gate = tf.sigmoid(o + w_o * c) if self.peepholes else tf.sigmoid(o)
        h = gate * tf.tanh(c)
        if self.num_proj:
            h = tf.matmul(h, read(self.projection, x))
            if self.proj_clip is not None:
                h = tf.clip_by_value(h, -self.proj_clip, self.proj_clip)
        return h, (c, h)


class GRUCell(_Cell):
    scope = "gru_cell"

    def build(self, params, prefix, depth):
        name = self._under(prefix)
        gates = self._weights(params, f"{name}/gates", depth, 2 * self.units, ones)
        self.gates_kernel, self.gates_bias = gates
        candidate = self._weights(params, f"{name}/candidate", depth, self.units)
        self.candidate_kernel, self.candidate_bias = candidate
        return self.units

    def __call__(self, x, state: State):
        h = state[0]
        value = tf.sigmoid(self._affine(x, h, self.gates_kernel, self.gates_bias))
        r, u = tf.split(value, 2, axis=1)
        c = tf.tanh(self._affine(x, r * h, self.candidate_kernel, self.candidate_bias))
        h = u * h + (1 - u) * c
        return h, (h,)


class LSTMBlockCell(LSTMCell):
    """``tf.contrib.rnn.LSTMBlockCell`` without peepholes or a clip: the
    fused kernel computed LSTMCell's formula on LSTMCell's names."""

    def __init__(self, num_units: int, forget_bias: float = 1.0):
        super().__init__(num_units, forget_bias=forget_bias)


class GRUBlockCell(GRUCell):
    """``tf.contrib.rnn.GRUBlockCell``: GRUCell's formula on the fused
    cell's names (``gru_cell/w_ru``, ``b_ru``, ``w_c``, ``b_c``)."""

    def build(self, params, prefix, depth):
        name, n = self._under(prefix), self.units
        self.gates_kernel = params.create(f"{name}/w_ru", [depth + n, 2 * n], glorot_uniform)
        self.gates_bias = params.create(f"{name}/b_ru", [2 * n], ones)
        self.candidate_kernel = params.create(f"{name}/w_c", [depth + n, n], glorot_uniform)
        self.candidate_bias = params.create(f"{name}/b_c", [n], zeros)
        return n


class GRUBlockCellV2(GRUCell):
    """``tf.contrib.rnn.GRUBlockCellV2``: GRUCell itself."""


class LayerNormBasicLSTMCell(BasicLSTMCell):
    """``tf.contrib.rnn.LayerNormBasicLSTMCell`` without recurrent dropout:
    each gate's pre-activation and the new cell state normalized over the
    units (``contrib.layers.layer_norm``: variance epsilon 1e-12, 1e-3 in
    float16), gains and shifts under ``input/`` ... ``state/``."""

    scope = "layer_norm_basic_lstm_cell"
    PARTS = ("input", "transform", "forget", "output", "state")

    def __init__(self, num_units: int, forget_bias: float = 1.0, layer_norm: bool = True,
                 norm_gain: float = 1.0, norm_shift: float = 0.0):  # fmt: skip
        super().__init__(num_units, forget_bias)
        self.layer_norm = layer_norm
        self.init = {"gamma": _constant(norm_gain), "beta": _constant(norm_shift)}

    def build(self, params, prefix, depth):
        name, columns = self._under(prefix), 4 * self.units
        self.kernel = params.create(f"{name}/kernel", [depth + self.units, columns],
                                    glorot_uniform)  # fmt: skip
        if not self.layer_norm:  # TF1 left its initializer to get_variable: Glorot
            self.bias = params.create(f"{name}/bias", [columns], glorot_uniform)
        self.norms = {
            part: [params.create(f"{name}/{part}/{v}", [self.units], self.init[v])
                   for v in ("gamma", "beta")]
            for part in (self.PARTS if self.layer_norm else ())
        }  # fmt: skip
        return self.units

    def _norm(self, x, part):
        gamma, beta = (read(v, x) for v in self.norms[part])
        mean, variance = tf.nn.moments(x, [1], keepdims=True)
        epsilon = 1e-3 if x.dtype == tf.float16 else 1e-12
        return tf.nn.batch_normalization(x, mean, variance, beta, gamma, epsilon)

    def __call__(self, x, state: State):
        c, h = state
        out = tf.matmul(tf.concat([x, h], 1), read(self.kernel, x))
        if not self.layer_norm:
            out = tf.nn.bias_add(out, read(self.bias, x))
        i, j, f, o = tf.split(out, 4, axis=1)
        if self.layer_norm:
            i, j, f, o = (self._norm(t, part) for t, part in zip((i, j, f, o), self.PARTS))
        c = c * tf.sigmoid(f + tf.constant(self.forget_bias, f.dtype)) + tf.sigmoid(i) * tf.tanh(j)
        if self.layer_norm:
            c = self._norm(c, "state")
        h = tf.tanh(c) * tf.sigmoid(o)
        return h, (c, h)


def _constant(value: float):
    """An initializer of ``value`` everywhere (norm_gain, norm_shift)."""
    return lambda shape, seed: tf.fill(shape, tf.constant(value, tf.float32))


class MultiRNNCell(_Cell):
    """Cells stacked, each feeding the next; the state is theirs in order."""

    scope = "multi_rnn_cell"

    def __init__(self, cells: Sequence[_Cell]):
        self.cells = list(cells)
        self.units = self.cells[-1].units

    def build(self, params, prefix, depth):
        for k, cell in enumerate(self.cells):
            depth = cell.build(params, f"{self._under(prefix)}/cell_{k}", depth)
        return depth

    def zero_state(self, batch, dtype):
        return tuple(cell.zero_state(batch, dtype) for cell in self.cells)

    def __call__(self, x, state):
        new = []
        for cell, s in zip(self.cells, state):
            x, s = cell(x, s)
            new.append(s)
        return x, tuple(new)


class DynamicRNN:
    """``tf.nn.dynamic_rnn(cell, inputs, sequence_length)`` under ``scope``
    (TF1's default ``rnn``): the variables are made here, for ``depth``
    input features; the call unrolls the input's static time dimension, or
    loops over one known only at run time."""

    def __init__(self, params: Params, cell: _Cell, depth: int, scope: str = "rnn"):
        self.cell = cell
        cell.build(params, scope, depth)

    def __call__(self, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor] = None):
        return _unroll(self.cell, inputs, sequence_length)


class BidirectionalDynamicRNN:
    """``tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs,
    sequence_length)``: variables under ``scope/fw`` and ``scope/bw``; the
    backward cell reads each sequence reversed within its length, and its
    outputs are put back in time order. Returns ``((out_fw, out_bw),
    (state_fw, state_bw))`` as TF1 did."""

    def __init__(self, params: Params, cell_fw: _Cell, cell_bw: _Cell, depth: int,
                 scope: str = "bidirectional_rnn"):  # fmt: skip
        self.cells = (cell_fw, cell_bw)
        cell_fw.build(params, f"{scope}/fw", depth)
        cell_bw.build(params, f"{scope}/bw", depth)

    def __call__(self, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor] = None):
        out_fw, state_fw = _unroll(self.cells[0], inputs, sequence_length)
        out_bw, state_bw = _unroll(self.cells[1], _reverse(inputs, sequence_length),
                                   sequence_length)  # fmt: skip
        return (out_fw, _reverse(out_bw, sequence_length)), (state_fw, state_bw)


class LSTMBlockFusedCell:
    """``tf.contrib.rnn.LSTMBlockFusedCell(num_units)`` called on a
    time-major ``[time, batch, depth]`` input: LSTMCell's formula (what the
    fused kernel computed) under ``name/kernel`` and ``name/bias`` at the top
    level, outputs zero past each length and each sequence's last valid
    state, as ``dynamic_rnn``. ``reverse=True``: wrapped in
    ``TimeReversedFusedRNN`` (each sequence read backwards within its
    length, the outputs put back in time order)."""

    def __init__(self, params: Params, num_units: int, depth: int, forget_bias: float = 1.0,
                 name: str = "lstm_fused_cell", reverse: bool = False):  # fmt: skip
        self.cell = LSTMCell(num_units, forget_bias=forget_bias)
        self.cell.scope, self.reverse = name, reverse
        self.cell.build(params, "", depth)

    def __call__(self, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor] = None):
        x = tf.transpose(inputs, [1, 0, 2])  # batch-major, as _unroll takes it
        if self.reverse:
            x = _reverse(x, sequence_length)
        outputs, state = _unroll(self.cell, x, sequence_length)
        if self.reverse:
            outputs = _reverse(outputs, sequence_length)
        return tf.transpose(outputs, [1, 0, 2]), state


def _reverse(x: tf.Tensor, lengths: Optional[tf.Tensor]) -> tf.Tensor:
    """Each sequence reversed within its length (the rest kept), or whole."""
    if lengths is None:
        return tf.reverse(x, axis=[1])
    return tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0)


def _unroll(cell: _Cell, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor]):
    """dynamic_rnn's loop over the input's time dimension: unrolled when it
    is static, a while loop when only the run knows it (batches padded to
    their longest sequence)."""
    steps = inputs.shape[1]
    if steps is None:
        return _while(cell, inputs, sequence_length)
    state = cell.zero_state(tf.shape(inputs)[0], inputs.dtype)
    outputs: List[tf.Tensor] = []
    for t in range(steps):
        out, new = cell(inputs[:, t], state)
        if sequence_length is not None:
            out, new = _past_length(t >= sequence_length, out, new, state)
        outputs.append(out)
        state = new
    return tf.stack(outputs, axis=1), state


def _past_length(done: tf.Tensor, out: tf.Tensor, new: State, state: State):
    """dynamic_rnn's rule for the examples whose length ``done`` says has
    passed: a zero output, and the state they ended with."""
    done = tf.reshape(done, [-1, 1])
    kept = tf.nest.map_structure(lambda n, s: tf.where(done, s, n), new, state)
    return tf.where(done, tf.zeros_like(out), out), kept


def _while(cell: _Cell, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor]):
    """The same steps in a ``tf.while_loop``, as dynamic_rnn ran them."""
    steps = tf.shape(inputs)[1]
    state = cell.zero_state(tf.shape(inputs)[0], inputs.dtype)

    def step(t, state, outputs):
        out, new = cell(inputs[:, t], state)
        if sequence_length is not None:
            out, new = _past_length(t >= sequence_length, out, new, state)
        return t + 1, new, outputs.write(t, out)

    outputs = tf.TensorArray(inputs.dtype, size=steps)
    _, state, outputs = tf.while_loop(lambda t, *_: t < steps, step, (0, state, outputs))
    return tf.transpose(outputs.stack(), [1, 0, 2]), state
