"""TF1's recurrent cells written in TF2, in TF1's layout and under TF1's
variable names: the cells tf1_train.tf2.rnn's loops run (see its docstring
for why Keras' cells cannot stand in for them, and the formulas).

Each ``build(params, prefix, depth)`` makes the cell's variables under
``prefix``/its TF1 scope name and returns its output depth; a call takes
``(x, state)`` and returns ``(output, new state)``, as TF1's cells did.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train.tf2.layers import Params, glorot_uniform, graph_code, ones, read, zeros

State = Tuple[tf.Tensor, ...]


class _Cell:
    """A TF1 cell: ``scope`` is its default variable-scope name."""

    scope = ""

    def __init_subclass__(cls, **kwargs):
        # A cell's step and zero state are graph code (layers.graph_code):
        # each of our cells', marked here once (a user's own keep AutoGraph).
        super().__init_subclass__(**kwargs)
        for name in ("__call__", "zero_state"):
            if name in vars(cls) and cls.__module__.startswith("tf1_train."):
                setattr(cls, name, graph_code(vars(cls)[name]))

    def __init__(self, num_units: int):
        self.units = num_units

    def build(self, params: Params, prefix: str, depth: int) -> int:
        """Creates the variables under ``prefix``/``scope``; the output depth."""
        raise NotImplementedError

    @graph_code
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
    clip_passes_gradient = False

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
            c = _clip(c, self.cell_clip, self.clip_passes_gradient)
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
    """``contrib.rnn.LSTMBlockCell``: LSTMCell's formula and names (what
    the fused kernel computed), its peepholes and ``cell_clip`` as the
    kernel took them: a clip of 0 or less is none, and the gradient passes
    through the clip (the kernel's gradient ignores it; LSTMCell's stops)."""

    clip_passes_gradient = True

    def __init__(self, num_units: int, forget_bias: float = 1.0,
                 cell_clip: Optional[float] = None, use_peephole: bool = False):  # fmt: skip
        clip = cell_clip if cell_clip is not None and cell_clip > 0 else None
        super().__init__(num_units, use_peepholes=use_peephole, cell_clip=clip,
                         forget_bias=forget_bias)  # fmt: skip


class GRUBlockCell(GRUCell):
    """``contrib.rnn.GRUBlockCell``: GRUCell's formula on the fused
    cell's names (``gru_cell/w_ru``, ``b_ru``, ``w_c``, ``b_c``)."""

    def build(self, params, prefix, depth):
        name, n = self._under(prefix), self.units
        self.gates_kernel = params.create(f"{name}/w_ru", [depth + n, 2 * n], glorot_uniform)
        self.gates_bias = params.create(f"{name}/b_ru", [2 * n], ones)
        self.candidate_kernel = params.create(f"{name}/w_c", [depth + n, n], glorot_uniform)
        self.candidate_bias = params.create(f"{name}/b_c", [n], zeros)
        return n


class GRUBlockCellV2(GRUCell):
    """``contrib.rnn.GRUBlockCellV2``: GRUCell itself."""


class LayerNormBasicLSTMCell(BasicLSTMCell):
    """``contrib.rnn.LayerNormBasicLSTMCell`` without recurrent dropout:
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
        if not self.layer_norm:  # a kernel and a bias: BasicLSTMCell's step
            return super().__call__(x, state)
        c, h = state
        out = tf.matmul(tf.concat([x, h], 1), read(self.kernel, x))
        i, j, f, o = tf.split(out, 4, axis=1)
        i, j, f, o = (self._norm(t, part) for t, part in zip((i, j, f, o), self.PARTS))
        c = c * tf.sigmoid(f + tf.constant(self.forget_bias, f.dtype)) + tf.sigmoid(i) * tf.tanh(j)
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


class AttentionCellWrapper(_Cell):
    """contrib.rnn's ``AttentionCellWrapper(cell, attn_length)``: TF 1.15's
    ops around the wrapped cell (built under the wrapper's scope); the state
    is (the cell's state, the last attention read, the last ``attn_length``
    outputs), or those concatenated (``state_is_tuple=False``)."""

    scope = "attention_cell_wrapper"

    def __init__(self, cell: _Cell, attn_length: int, attn_size: Optional[int] = None,
                 attn_vec_size: Optional[int] = None, input_size: Optional[int] = None,
                 state_is_tuple: bool = True):  # fmt: skip
        if attn_length <= 0:
            raise ValueError(f"attn_length should be greater than zero, got {attn_length}")
        if not state_is_tuple and len(tf.nest.flatten(cell.zero_state(1, tf.float32))) > 1:
            raise ValueError("Cell returns tuple of states, but the flag state_is_tuple is not set")
        self.cell, self.length, self.input_size = cell, attn_length, input_size
        # the output (what a stacked layer reads); by default the cell's own
        self.units = attn_size or getattr(cell, "num_proj", None) or cell.units
        self.vec, self.tuple = attn_vec_size or self.units, state_is_tuple

    def build(self, params, prefix, depth):
        name, size, vec = self._under(prefix), self.units, self.vec
        width = self.input_size or depth
        self.kernel = params.create(f"{name}/kernel", [depth + size, width], glorot_uniform)
        self.bias = params.create(f"{name}/bias", [width], zeros)
        out = self.cell.build(params, name, width)
        query = sum(int(s.shape[-1]) for s in tf.nest.flatten(self.cell.zero_state(1, tf.float32)))
        self.attn_w = params.create(f"{name}/attention/attn_w", [1, 1, size, vec], glorot_uniform)
        self.attn_v = params.create(f"{name}/attention/attn_v", [vec], glorot_uniform)
        self.query = params.create(f"{name}/attention/kernel", [query, vec], glorot_uniform)
        self.query_bias = params.create(f"{name}/attention/bias", [vec], zeros)
        proj = f"{name}/attn_output_projection"
        self.proj = params.create(f"{proj}/kernel", [out + size, size], glorot_uniform)
        self.proj_bias = params.create(f"{proj}/bias", [size], zeros)
        return size

    def zero_state(self, batch, dtype):
        inner = self.cell.zero_state(batch, dtype)
        state = (inner, tf.zeros([batch, self.units], dtype),
                 tf.zeros([batch, self.units * self.length], dtype))  # fmt: skip
        return state if self.tuple else (tf.concat(tf.nest.flatten(state), 1),)

    def __call__(self, x, state):
        if not self.tuple:
            widths = [self.cell.units, self.units, self.units * self.length]
            inner, attns, window = tf.split(state[0], widths, axis=1)
            inner = (inner,)  # a one-tensor state, as TF1 required of it here
        else:
            inner, attns, window = state
        window = tf.reshape(window, [-1, self.length, self.units])
        out, new = self.cell(self._affine(x, attns, self.kernel, self.bias), inner)
        attns = self._attention(tf.concat(tf.nest.flatten(new), 1), window, x)
        output = self._affine(out, attns, self.proj, self.proj_bias)
        window = tf.concat([window[:, 1:], tf.expand_dims(output, 1)], 1)
        state = (new, attns, tf.reshape(window, [-1, self.length * self.units]))
        return output, state if self.tuple else (tf.concat(tf.nest.flatten(state), 1),)

    def _attention(self, query, window, x):
        hidden = tf.reshape(window, [-1, self.length, 1, self.units])
        features = tf.nn.conv2d(hidden, read(self.attn_w, x), [1, 1, 1, 1], "SAME")
        y = tf.nn.bias_add(tf.matmul(query, read(self.query, x)), read(self.query_bias, x))
        y = tf.reshape(y, [-1, 1, 1, self.vec])
        a = tf.nn.softmax(tf.reduce_sum(read(self.attn_v, x) * tf.tanh(features + y), [2, 3]))
        d = tf.reduce_sum(tf.reshape(a, [-1, self.length, 1, 1]) * hidden, [1, 2])
        return tf.reshape(d, [-1, self.units])


def _clip(c: tf.Tensor, clip: float, passes_gradient: bool) -> tf.Tensor:
    """The cell state clipped to [-clip, clip]; its gradient stopped where
    clipped (clip_by_value's), or passed through as the fused kernels did."""
    if not passes_gradient:
        return tf.clip_by_value(c, -clip, clip)

    @tf.custom_gradient
    def clip_keeping_gradient(x):
        return tf.clip_by_value(x, -clip, clip), lambda dy: dy

    return clip_keeping_gradient(c)
