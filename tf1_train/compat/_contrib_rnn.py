"""tf.contrib.rnn's own cells, kept: LSTMBlockCell, LSTMBlockFusedCell,
TimeReversedFusedRNN, GRUBlockCell(V2) and LayerNormBasicLSTMCell, as TF
1.15 defined them (AttentionCellWrapper, the projection wrappers, the
convolutional LSTM cells and the research cells are in modules of their
own, added to ``KEPT``).

Real TF1 code bases reached for these for speed (the PTB tutorial's
``LSTMBlockCell``, DeepSpeech's ``LSTMBlockFusedCell``, reading-comprehension
models' GRUs). Each is kept only where TensorFlow 2.21 still has what it
computed with, so the numbers are TF1's:

- ``LSTMBlockCell`` and ``LSTMBlockFusedCell`` ran TensorFlow's fused LSTM
  kernels on LSTMCell's variable layout (``kernel``, ``bias``, ``w_*_diag``).
  2.21 still has the sequence op, ``BlockLSTM``, with its gradient
  registered (the cell op has none), so both run it: the fused cell over the
  whole sequence, masking outputs past ``sequence_length`` and taking each
  sequence's last valid state as TF 1.15 did; the cell as a sequence of one
  step. Forward and gradient are then TF1's kernels', which matters under an
  active ``cell_clip``: their gradient passes through the clip, where
  ``LSTMCell``'s ``clip_by_value`` stops it. The kernels have float32 and
  float16 versions only; in bfloat16 (``--precision=bf16``, which TF1 never
  ran them in) ``LSTMBlockCell`` computes LSTMCell's formula instead and the
  fused cell refuses with one line.
- ``GRUBlockCell`` ran one fused op of ``GRUCell``'s equations on variables
  named ``w_ru``, ``b_ru``, ``w_c``, ``b_c`` (``V2``: GRUCell's own
  ``gates/kernel`` ...). That op has no gradient registered in 2.21, so this
  is TensorFlow's ``GRUCell`` on those names; tests/test_compat_contrib_rnn.py
  holds its step and gradient to the op and its gradient kernel.
- ``TimeReversedFusedRNN`` reverses time (per sequence length) around a
  fused cell, for the backward half of a bidirectional layer.
- ``LayerNormBasicLSTMCell`` (tensorflow/nmt's ``layer_norm_lstm``) was
  core ops around ``tf.contrib.layers.layer_norm``: the same ops again.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.keras.engine.input_spec import InputSpec
from tensorflow.python.keras.legacy_tf_layers import base as layers_base

from tf1_train.compat import rnn_cell
from tf1_train.compat._contrib_attention import AttentionCellWrapper
from tf1_train.compat._contrib_core_cells import KEPT as CORE_CELLS
from tf1_train.compat._contrib_research_cells import KEPT as RESEARCH_CELLS

v1 = tf.compat.v1


def _lstm_options(layer, num_units, forget_bias, cell_clip, use_peephole, ndim: int) -> None:
    """The fused LSTM cells' arguments, as the kernel takes them."""
    layer._num_units = num_units
    layer._forget_bias = forget_bias
    layer._cell_clip = cell_clip if cell_clip is not None else -1  # the kernel's "no clip"
    layer._use_peephole = use_peephole
    layer.input_spec = InputSpec(ndim=ndim)


def _lstm_weights(layer, depth: int, n: int, peephole: bool) -> None:
    """LSTMCell's variable layout, in the fused cells' creation order."""
    layer._kernel = layer.add_weight("kernel", [depth + n, 4 * n])
    layer._bias = layer.add_weight("bias", [4 * n], initializer=v1.constant_initializer(0.0))
    layer._diag = [layer.add_weight(f"w_{g}_diag", [n]) for g in "ifo"] if peephole else None


def _block_lstm(layer, x, c0, h0, longest):
    """TensorFlow's BlockLSTM kernel over ``x`` ([time, batch, depth]) up to
    ``longest`` steps: (cs, h), each [time, batch, units]."""
    wci, wcf, wco = layer._diag or [tf.zeros([layer._num_units], dtype=x.dtype)] * 3
    result = tf.raw_ops.BlockLSTM(
        seq_len_max=tf.cast(longest, tf.int64), x=x, cs_prev=c0, h_prev=h0, w=layer._kernel,
        wci=wci, wcf=wcf, wco=wco, b=layer._bias, forget_bias=layer._forget_bias,
        cell_clip=layer._cell_clip, use_peephole=layer._diag is not None,
    )  # fmt: skip
    return result.cs, result.h


class _LSTMSizes:
    """An LSTM cell's state (c, h) and output sizes."""

    @property
    def state_size(self):
        return rnn_cell.LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self) -> int:
        return self._num_units


class LSTMBlockCell(_LSTMSizes, rnn_cell._impl.LayerRNNCell):
    """``tf.contrib.rnn.LSTMBlockCell(num_units)``: one step of the fused
    LSTM kernel per call, under the layer name ``lstm_cell``."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 dtype=None, reuse=None, name="lstm_cell"):  # fmt: skip
        super().__init__(_reuse=reuse, dtype=dtype, name=name)
        _lstm_options(self, num_units, forget_bias, cell_clip, use_peephole, ndim=2)

    def build(self, inputs_shape):
        depth = tf.TensorShape(inputs_shape)[1]
        if not depth:
            raise ValueError(f"Expecting inputs_shape[1] to be set: {inputs_shape}")
        _lstm_weights(self, depth, self._num_units, self._use_peephole)
        self.built = True

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        if len(state) != 2:
            raise ValueError("Expecting state to be a tuple with length 2.")
        c_prev, h_prev = state
        if inputs.dtype in (tf.float32, tf.float16):
            cs, h = _block_lstm(self, inputs[None], c_prev, h_prev, 1)
            return h[0], rnn_cell.LSTMStateTuple(cs[0], h[0])
        return self._formula(inputs, c_prev, h_prev)

    def _formula(self, x, c_prev, h_prev):
        """LSTMCell's ops, for a dtype the kernel lacks (bfloat16)."""
        gates = tf.nn.bias_add(tf.matmul(tf.concat([x, h_prev], 1), self._kernel), self._bias)
        i, j, f, o = tf.split(gates, 4, axis=1)
        if self._diag:
            wci, wcf, wco = self._diag
            c = (tf.sigmoid(f + self._forget_bias + wcf * c_prev) * c_prev
                 + tf.sigmoid(i + wci * c_prev) * tf.tanh(j))  # fmt: skip
        else:
            c = tf.sigmoid(f + self._forget_bias) * c_prev + tf.sigmoid(i) * tf.tanh(j)
        if self._cell_clip > 0:  # the kernel's rule: 0 or less is no clip
            c = tf.clip_by_value(c, -self._cell_clip, self._cell_clip)
        o = tf.sigmoid(o + wco * c) if self._diag else tf.sigmoid(o)
        h = o * tf.tanh(c)
        return h, rnn_cell.LSTMStateTuple(c, h)


class GRUBlockCell(rnn_cell.GRUCell):
    """``tf.contrib.rnn.GRUBlockCell(num_units)``: GRUCell's equations on
    the fused cell's variable names."""

    NAMES = ("w_ru", "b_ru", "w_c", "b_c")

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell"):
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        super().__init__(num_units if num_units is not None else cell_size, reuse=reuse,
                         name=name)  # fmt: skip

    def build(self, inputs_shape):
        depth = tf.TensorShape(inputs_shape)[-1]
        if depth is None:
            raise ValueError(f"Expecting input_size to be set, saw shape {inputs_shape}")
        gate_w, gate_b, cand_w, cand_b = self.NAMES
        n = self._num_units
        self._gate_kernel = self.add_weight(gate_w, [depth + n, 2 * n])
        one, zero = v1.constant_initializer(1.0), v1.constant_initializer(0.0)
        self._gate_bias = self.add_weight(gate_b, [2 * n], initializer=one)
        self._candidate_kernel = self.add_weight(cand_w, [depth + n, n])
        self._candidate_bias = self.add_weight(cand_b, [n], initializer=zero)
        self.built = True


class GRUBlockCellV2(GRUBlockCell):
    """``tf.contrib.rnn.GRUBlockCellV2``: the same on GRUCell's names."""

    NAMES = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")


class LSTMBlockFusedCell(layers_base.Layer):
    """``tf.contrib.rnn.LSTMBlockFusedCell(num_units)``: called on a
    time-major ``[time, batch, depth]`` tensor (or a list of ``[batch,
    depth]`` steps), returns (outputs, ``LSTMStateTuple(c, h)``)."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 reuse=None, dtype=None, name="lstm_fused_cell"):  # fmt: skip
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        _lstm_options(self, num_units, forget_bias, cell_clip, use_peephole, ndim=3)

    @property
    def num_units(self) -> int:
        return self._num_units

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, list):  # a list of steps in, a list of steps out
            outputs, state = super().__call__(tf.stack(inputs), *args, **kwargs)
            return tf.unstack(outputs), state
        return super().__call__(inputs, *args, **kwargs)

    def build(self, input_shape):
        _lstm_weights(self, tf.TensorShape(input_shape)[2], self._num_units, self._use_peephole)
        self.built = True

    # Plain Python on tensors: autograph (which the legacy Layer applies to
    # ``call``) would only wrap its errors in "in user code:".
    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        time_len = tf.compat.dimension_value(inputs.shape[0]) or tf.shape(inputs)[0]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            zero = tf.zeros(tf.stack([tf.shape(inputs)[1], self._num_units]), dtype=dtype)
            initial_state = zero, zero
        elif len(initial_state) != 2:
            raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
        c0, h0 = initial_state
        dtype = dtype or c0.dtype
        if tf.as_dtype(dtype) not in (tf.float32, tf.float16):
            raise TypeError(
                f"tf.contrib.rnn.LSTMBlockFusedCell runs TensorFlow's BlockLSTM op, which has "
                f"float32 and float16 kernels only, not {tf.as_dtype(dtype).name} (under "
                "--precision=bf16 use LSTMBlockCell or LSTMCell, which run in bfloat16)"
            )
        longest = time_len if sequence_length is None else tf.reduce_max(sequence_length)
        cs, h = _block_lstm(self, inputs, c0, h0, longest)
        if sequence_length is None:
            return h, rnn_cell.LSTMStateTuple(cs[-1], h[-1])
        lengths = tf.convert_to_tensor(sequence_length)
        mask = tf.transpose(tf.sequence_mask(lengths, time_len, dtype=dtype))
        h *= tf.tile(mask[:, :, None], [1, 1, self._num_units])
        # The last valid step of each sequence; index 0 is the initial state
        # (a sequence of length 0).
        batch = tf.range(tf.shape(inputs)[1], dtype=lengths.dtype)
        at = tf.stack([lengths, batch], axis=1)
        final_c = tf.gather_nd(tf.concat([c0[None], cs], 0), at)
        final_h = tf.gather_nd(tf.concat([h0[None], h], 0), at)
        return h, rnn_cell.LSTMStateTuple(final_c, final_h)


class TimeReversedFusedRNN:
    """``tf.contrib.rnn.TimeReversedFusedRNN(cell)``: the cell run on the
    sequences reversed in time (each within its length), outputs reversed
    back."""

    def __init__(self, cell):
        self._cell = cell

    @staticmethod
    def _reverse(t, lengths):
        if isinstance(t, list):
            return list(reversed(t))
        if lengths is None:
            return tf.reverse(t, [0])
        return tf.reverse_sequence(t, lengths, seq_axis=0, batch_axis=1)

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None,
                 scope=None):  # fmt: skip
        outputs, state = self._cell(
            self._reverse(inputs, sequence_length), initial_state=initial_state, dtype=dtype,
            sequence_length=sequence_length, scope=scope,
        )  # fmt: skip
        return self._reverse(outputs, sequence_length), state


class LayerNormBasicLSTMCell(_LSTMSizes, rnn_cell.RNNCell):
    """``tf.contrib.rnn.LayerNormBasicLSTMCell(num_units)``: BasicLSTMCell
    with each gate's pre-activation and the new cell state layer-normalized
    (gains and shifts under ``input/``, ``transform/``, ``forget/``,
    ``output/``, ``state/``) and recurrent dropout on the candidate, as TF
    1.15 computed it: ``tf.contrib.layers.layer_norm``'s moments and
    ``batch_normalization`` with a variance epsilon of 1e-12 (1e-3 in
    float16). Its variables come from ``get_variable`` during the call, as
    TF1's did, so they sit under the cell's scope and share by reuse."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=tf.tanh,
                 layer_norm=True, norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0,
                 dropout_prob_seed=None, reuse=None):  # fmt: skip
        super().__init__(_reuse=reuse)
        del input_size  # deprecated and unused in TF1 too
        self._num_units = num_units
        self._activation = activation
        self._forget_bias = forget_bias
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift

    def _norm(self, x, scope: str):
        with v1.variable_scope(scope):
            shape, dtype = x.shape[-1:], x.dtype
            gamma = v1.get_variable("gamma", shape, dtype,
                                    v1.constant_initializer(self._norm_gain))  # fmt: skip
            beta = v1.get_variable("beta", shape, dtype, v1.constant_initializer(self._norm_shift))
        mean, variance = tf.nn.moments(x, [1], keepdims=True)
        epsilon = 1e-3 if dtype == tf.float16 else 1e-12
        return tf.nn.batch_normalization(x, mean, variance, beta, gamma, epsilon)

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        c, h = state
        args = tf.concat([inputs, h], 1)
        width = 4 * self._num_units
        out = tf.matmul(args, v1.get_variable("kernel", [args.shape[-1], width], args.dtype))
        if not self._layer_norm:
            out = tf.nn.bias_add(out, v1.get_variable("bias", [width], args.dtype))
        i, j, f, o = tf.split(out, 4, axis=1)
        if self._layer_norm:
            gates = zip((i, j, f, o), ("input", "transform", "forget", "output"))
            i, j, f, o = (self._norm(gate, scope) for gate, scope in gates)
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = v1.nn.dropout(g, keep_prob=self._keep_prob, seed=self._seed)
        new_c = c * tf.sigmoid(f + self._forget_bias) + tf.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state")
        new_h = self._activation(new_c) * tf.sigmoid(o)
        return new_h, rnn_cell.LSTMStateTuple(new_c, new_h)


KEPT = {
    "AttentionCellWrapper": AttentionCellWrapper,
    "LSTMBlockCell": LSTMBlockCell,
    "GRUBlockCell": GRUBlockCell,
    "GRUBlockCellV2": GRUBlockCellV2,
    "LayerNormBasicLSTMCell": LayerNormBasicLSTMCell,
    "LSTMBlockFusedCell": LSTMBlockFusedCell,
    "TimeReversedFusedRNN": TimeReversedFusedRNN,
    **CORE_CELLS,
    **RESEARCH_CELLS,
}
