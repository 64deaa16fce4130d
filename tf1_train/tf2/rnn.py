"""TF1's recurrent cells and ``dynamic_rnn`` in TF2, in TF1's layout and
under TF1's variable names, for a user's TF2 twin (``--tf2_model``).

A TF2 twin must hold the TF1 model's variables under their checkpoint names
(tf1_train/tf2/models.py); Keras' ``LSTM`` and ``GRU`` cannot: they split a
TF1 cell's one ``concat([x, h])`` kernel in two and order the gates
differently (tf1_train/port/rnn_weights.py, for a Keras port). These cells
compute TF1's formulas on TF1's arrays instead, so a checkpoint of either
entry point restores into the other (the cells are written in
tf1_train/tf2/rnn_cells.py; this module hands them out with the loops):

- ``LSTMCell`` / ``BasicLSTMCell``: ``i, j, f, o = split(concat([x, h]) K + b)``,
  ``c = c sigmoid(f + forget_bias) + sigmoid(i) tanh(j)``, ``h = tanh(c) sigmoid(o)``;
  LSTMCell's peepholes, ``cell_clip`` and projection (``num_proj``,
  ``proj_clip``) too;
- ``GRUCell``: ``r, u = split(sigmoid(concat([x, h]) G + g))``,
  ``c = tanh(concat([x, r h]) C + b)``, ``h = u h + (1 - u) c``;
- ``BasicRNNCell``: ``h = tanh(concat([x, h]) K + b)``;
- TF1's contrib.rnn ``LSTMBlockCell`` (LSTMCell's formula and names; the
  fused kernel's gradient, which passes through an active ``cell_clip``),
  ``GRUBlockCell`` (GRUCell's formula on ``w_ru``, ``b_ru``, ``w_c``, ``b_c``)
  and ``LayerNormBasicLSTMCell`` (BasicLSTMCell's with each gate and the new
  cell state layer-normalized; no recurrent dropout) and
  ``AttentionCellWrapper`` (its ops around the wrapped cell), and
  ``OutputProjectionWrapper`` / ``InputProjectionWrapper`` (a dense layer
  after / before the cell) and ``EmbeddingWrapper`` (an embedding lookup
  before it): tf1_train/tf2/rnn_wrappers.py; ``ConvLSTMCell`` and its
  1D/2D/3D forms (LSTMCell's gates from a convolution of ``[x, h]``, on
  ``[batch, time, *spatial, channels]`` inputs): tf1_train/tf2/rnn_conv.py;
  the research cells ``NASCell``, ``UGRNNCell``, ``IntersectionRNNCell``,
  ``IndRNNCell``, ``IndyGRUCell``, ``IndyLSTMCell``: tf1_train/tf2/rnn_research.py;
- ``LSTMBlockFusedCell`` runs LSTMCell's formula over a time-major input
  under the fused cell's names, ``reverse=True`` as ``TimeReversedFusedRNN``;
- ``MultiRNNCell`` stacks them (``multi_rnn_cell/cell_<i>/``), and
  ``DynamicRNN`` runs one over a ``[batch, time, depth]`` input as
  ``tf.nn.dynamic_rnn`` does, ``sequence_length`` included: outputs past a
  length are zeros and the state stops there. ``static_rnn`` made the same
  variables and numbers (its outputs: ``tf.unstack(outputs, axis=1)``);
  ``BidirectionalDynamicRNN`` is ``bidirectional_dynamic_rnn`` (and
  ``static_bidirectional_rnn``), ``StackBidirectionalRNN`` contrib.rnn's
  ``stack_bidirectional_dynamic_rnn`` and ``stack_bidirectional_rnn``.

Initial values follow the cells' TF1 defaults in kind (Glorot-uniform
kernels, a GRU's gate bias at 1), seeded by name as tf1_train's other TF2
layers are; they are not the TF1 graph's draws, so a twin starts from a TF1
checkpoint (``--init_checkpoint``) to train the same numbers.
"""

from __future__ import annotations

from typing import List, Optional

import tensorflow as tf

from tf1_train.tf2.layers import Params, graph_code
from tf1_train.tf2.rnn_cells import (  # noqa: F401 (the cells are this module's too)
    AttentionCellWrapper,
    BasicLSTMCell,
    BasicRNNCell,
    GRUBlockCell,
    GRUBlockCellV2,
    GRUCell,
    LayerNormBasicLSTMCell,
    LSTMBlockCell,
    LSTMCell,
    MultiRNNCell,
    State,
    _Cell,
)
from tf1_train.tf2.rnn_conv import (  # noqa: F401
    Conv1DLSTMCell,
    Conv2DLSTMCell,
    Conv3DLSTMCell,
    ConvLSTMCell,
)
from tf1_train.tf2.rnn_research import (  # noqa: F401
    IndRNNCell,
    IndyGRUCell,
    IndyLSTMCell,
    IntersectionRNNCell,
    NASCell,
    UGRNNCell,
)
from tf1_train.tf2.rnn_wrappers import (  # noqa: F401
    EmbeddingWrapper,
    InputProjectionWrapper,
    OutputProjectionWrapper,
)


class DynamicRNN:
    """``tf.nn.dynamic_rnn(cell, inputs, sequence_length)`` under ``scope``
    (TF1's default ``rnn``): the variables are made here, for ``depth``
    input features; the call unrolls the input's static time dimension, or
    loops over one known only at run time."""

    def __init__(self, params: Params, cell: _Cell, depth: int, scope: str = "rnn"):
        self.cell = cell
        cell.build(params, scope, depth)

    @graph_code
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
        # the depth of the outputs concatenated, what a stacked layer reads
        self.output_depth = cell_fw.build(params, f"{scope}/fw", depth) + cell_bw.build(
            params, f"{scope}/bw", depth
        )

    @graph_code
    def __call__(self, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor] = None):
        out_fw, state_fw = _unroll(self.cells[0], inputs, sequence_length)
        out_bw, state_bw = _unroll(self.cells[1], _reverse(inputs, sequence_length),
                                   sequence_length)  # fmt: skip
        return (out_fw, _reverse(out_bw, sequence_length)), (state_fw, state_bw)


class StackBidirectionalRNN:
    """contrib.rnn's ``stack_bidirectional_dynamic_rnn(cells_fw, cells_bw,
    inputs, sequence_length=...)`` and, ``static=True``, its
    ``stack_bidirectional_rnn``: one ``BidirectionalDynamicRNN`` per pair of
    cells, each fed the last one's outputs concatenated, under
    ``scope/cell_<i>/bidirectional_rnn/`` (the static one: ``scope/cell_<i>/``).
    Returns ``(outputs, states_fw, states_bw)``; the static one takes and
    gives a list of ``[batch, depth]`` steps, as TF1 did."""

    def __init__(
        self,
        params: Params,
        cells_fw: List[_Cell],
        cells_bw: List[_Cell],
        depth: int,
        scope: str = "stack_bidirectional_rnn",
        static: bool = False,
    ):
        if not cells_fw or len(cells_fw) != len(cells_bw):
            raise ValueError("cells_fw and cells_bw must be lists of one cell per layer, as long")
        self.static, self.layers = static, []
        for i, (fw, bw) in enumerate(zip(cells_fw, cells_bw)):
            under = f"{scope}/cell_{i}" + ("" if static else "/bidirectional_rnn")
            self.layers.append(BidirectionalDynamicRNN(params, fw, bw, depth, under))
            depth = self.layers[-1].output_depth

    @graph_code
    def __call__(self, inputs, sequence_length: Optional[tf.Tensor] = None):
        x = tf.stack(inputs, axis=1) if self.static else inputs
        states_fw, states_bw = [], []
        for layer in self.layers:
            (out_fw, out_bw), (state_fw, state_bw) = layer(x, sequence_length)
            x = tf.concat([out_fw, out_bw], 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
        outputs = tf.unstack(x, axis=1) if self.static else x
        return outputs, tuple(states_fw), tuple(states_bw)


class LSTMBlockFusedCell:
    """``contrib.rnn.LSTMBlockFusedCell(num_units)`` called on a
    time-major ``[time, batch, depth]`` input: LSTMBlockCell's formula (what
    the fused kernel computed) under ``name/kernel`` and ``name/bias`` at the
    top level, outputs zero past each length and each sequence's last valid
    state, as ``dynamic_rnn``. ``reverse=True``: wrapped in
    ``TimeReversedFusedRNN`` (each sequence read backwards within its
    length, the outputs put back in time order)."""

    def __init__(self, params: Params, num_units: int, depth: int, forget_bias: float = 1.0,
                 cell_clip: Optional[float] = None, use_peephole: bool = False,
                 name: str = "lstm_fused_cell", reverse: bool = False):  # fmt: skip
        self.cell = LSTMBlockCell(num_units, forget_bias, cell_clip, use_peephole)
        self.cell.scope, self.reverse = name, reverse
        self.cell.build(params, "", depth)

    @graph_code
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


def _unroll(cell: _Cell, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor],
            initial_state: Optional[State] = None, output_dtype=None):  # fmt: skip
    """dynamic_rnn's loop over the input's time dimension: unrolled when it
    is static, a while loop when only the run knows it (batches padded to
    their longest sequence). From the cell's zero state unless
    ``initial_state``; ``output_dtype``: the outputs' when not the state's
    (contrib.crf's Viterbi cell steps backpointers from scores)."""
    steps = inputs.shape[1]
    if steps is None:
        return _while(cell, inputs, sequence_length, initial_state, output_dtype)
    state = initial_state
    if state is None:
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

    def where(keep, changed):  # ``done`` against [batch, ...] of any rank
        mask = tf.reshape(done, [-1] + [1] * (changed.shape.rank - 1))
        return tf.where(mask, keep, changed)

    kept = tf.nest.map_structure(where, state, new)
    return where(tf.zeros_like(out), out), kept


def _while(cell: _Cell, inputs: tf.Tensor, sequence_length: Optional[tf.Tensor],
           state: Optional[State], output_dtype):  # fmt: skip
    """The same steps in a ``tf.while_loop``, as dynamic_rnn ran them."""
    steps = tf.shape(inputs)[1]
    if state is None:
        state = cell.zero_state(tf.shape(inputs)[0], inputs.dtype)

    def step(t, state, outputs):
        out, new = cell(inputs[:, t], state)
        if sequence_length is not None:
            out, new = _past_length(t >= sequence_length, out, new, state)
        return t + 1, new, outputs.write(t, out)

    # ids in: floats out, as the state's
    outputs = tf.TensorArray(output_dtype or tf.nest.flatten(state)[0].dtype, size=steps)
    _, state, outputs = tf.while_loop(lambda t, *_: t < steps, step, (0, state, outputs))
    stacked = outputs.stack()  # [time, batch, ...]
    return tf.transpose(stacked, [1, 0, *range(2, stacked.shape.rank)]), state
