"""TF1 contrib's ``seq2seq`` attention for a TF2 twin: ``LuongAttention``,
``BahdanauAttention`` and ``AttentionWrapper``, TF 1.15's ops in its order
(tf1_train/compat/_contrib_attention_wrapper.py keeps them for TF1 code) on
its variable names, so a twin restores the TF1 checkpoint and computes its
numbers (tests/test_tf2_decode.py):

- ``<scope>/memory_layer/kernel``: the projection of the memory into keys,
  where the TF1 code made the mechanism (``scope``, "" at the top);
- under the wrapper (``<decoder scope>/attention_wrapper/``): the cell's
  variables, ``bahdanau_attention/query_layer/kernel`` and ``attention_v``
  (``normalize``: ``attention_g``, ``attention_b``),
  ``luong_attention/attention_g`` (``scale``), ``attention_layer/kernel``.

TF1 gave a mechanism its memory when it was made; a twin's mechanism is made
once, with its variables, and is given each batch's memory by
``setup_memory`` before the wrapper's zero state and the decode (as TF2's
tensorflow_addons did).

Left out, each refused by one ``NotImplementedError`` naming it: several
mechanisms in one wrapper, ``alignment_history``, a custom ``cell_input_fn``,
``attention_layer`` or ``attention_fn``, ``initial_cell_state`` (replace the
zero state's: ``zero_state(...).clone(cell_state=...)``), a mechanism's
``custom_key_value_fn``; the monotonic mechanisms are not here.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional

import tensorflow as tf

from tf1_train.tf2.layers import Params, glorot_uniform, graph_code, ones, read, zeros
from tf1_train.tf2.rnn_cells import State, _Cell


def left_out(what: str) -> NotImplementedError:
    """The one error for what the twin leaves out: the TF1 code keeps it
    through tf1_train.compat."""
    return NotImplementedError(
        f"tf1_train.tf2's seq2seq twin leaves out {what}; run that TF1 code "
        "through tf1_train.compat (tf1_train/tf2/attention.py lists what is left out)"
    )


def _refuse(asked: dict) -> None:
    for what, given in asked.items():
        if given:
            raise left_out(what)


def _under(scope: str, name: str) -> str:
    return f"{scope}/{name}" if scope else name


class Memory(NamedTuple):
    """A batch's memory as the mechanism reads it: ``values`` (zeroed past
    each length), ``keys`` (their projection) and the lengths (or None)."""

    values: tf.Tensor
    keys: tf.Tensor
    lengths: Optional[tf.Tensor]


class _Mechanism:
    """TF1's common part: ``memory_layer`` (made with the mechanism), the
    masked memory and a masked ``probability_fn`` of the score."""

    scope = ""

    def __init__(self, params: Params, num_units: int, memory_depth: int, scope: str,
                 probability_fn: Optional[Callable], score_mask_value,
                 custom_key_value_fn: Optional[Callable]):  # fmt: skip
        _refuse({"custom_key_value_fn": custom_key_value_fn is not None})
        self.units, self.depth = num_units, memory_depth
        self.memory_kernel = params.create(
            _under(scope, "memory_layer/kernel"), [memory_depth, num_units], glorot_uniform
        )
        self.probability_fn = tf.nn.softmax if probability_fn is None else probability_fn
        self.score_mask_value = score_mask_value
        self._memory: Optional[Memory] = None

    @graph_code
    def setup_memory(self, memory: tf.Tensor, memory_sequence_length=None) -> None:
        """This batch's ``[batch, time, memory_depth]`` memory, zeroed past
        each length (the keys are made from it: padding reaches no context)."""
        memory = tf.convert_to_tensor(memory, name="memory")
        if memory.shape.rank != 3 or memory.shape[-1] != self.depth:
            raise ValueError(f"memory must be [batch, time, {self.depth}], got {memory.shape}")
        lengths = None
        if memory_sequence_length is not None:
            lengths = tf.convert_to_tensor(memory_sequence_length, name="memory_sequence_length")
            message = "All values in memory_sequence_length must be greater than zero."
            tf.debugging.assert_positive(lengths, message=message)
            mask = tf.sequence_mask(lengths, tf.shape(memory)[1], dtype=memory.dtype)
            memory = memory * tf.expand_dims(mask, 2)
        keys = tf.tensordot(memory, read(self.memory_kernel, memory), [[2], [0]])
        self._memory = Memory(memory, keys, lengths)

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            raise ValueError("the attention mechanism has no memory: call setup_memory first")
        return self._memory

    def build(self, params: Params, prefix: str, query_depth: int) -> None:
        """The variables TF1 made at the first query, under ``prefix``."""
        raise NotImplementedError

    def score(self, query: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError

    def initial_alignments(self, batch, dtype) -> tf.Tensor:
        """Zeros ``[batch, memory time]``: the softmax mechanisms ignore them."""
        keys = self.memory.keys
        return tf.zeros([batch, keys.shape[1] or tf.shape(keys)[1]], dtype)

    @graph_code
    def __call__(self, query: tf.Tensor, state: tf.Tensor):
        """``(alignments, next state)``, both the new alignments; the score
        is ``score_mask_value`` (TF1's default: -inf) past each length."""
        del state
        score = self.score(query)
        lengths = self.memory.lengths
        if lengths is not None:
            mask = tf.sequence_mask(lengths, tf.shape(score)[1])
            value = -math.inf if self.score_mask_value is None else self.score_mask_value
            score = tf.where(mask, score, tf.cast(value, score.dtype) * tf.ones_like(score))
        alignments = self.probability_fn(score)
        return alignments, alignments


class LuongAttention(_Mechanism):
    """Multiplicative attention (arXiv:1508.04025): the query (the cell's
    output, as deep as ``num_units``) against the keys; ``scale`` multiplies
    by a learnt scalar ``attention_g`` (from 1)."""

    scope = "luong_attention"

    def __init__(self, params: Params, num_units: int, memory_depth: int, scale: bool = False,
                 scope: str = "", probability_fn: Optional[Callable] = None,
                 score_mask_value=None,
                 custom_key_value_fn: Optional[Callable] = None):  # fmt: skip
        super().__init__(params, num_units, memory_depth, scope, probability_fn,
                         score_mask_value, custom_key_value_fn)  # fmt: skip
        self.scale = scale

    def build(self, params, prefix, query_depth):
        if query_depth != self.units:
            raise ValueError(
                f"query depth {query_depth} != keys depth {self.units}: "
                f"set num_units to {query_depth}"
            )
        if self.scale:
            self.g = params.create(_under(prefix, "luong_attention/attention_g"), [], ones)

    def score(self, query):
        keys = self.memory.keys
        score = tf.squeeze(tf.matmul(tf.expand_dims(query, 1), keys, transpose_b=True), [1])
        return read(self.g, score) * score if self.scale else score


class BahdanauAttention(_Mechanism):
    """Additive attention (arXiv:1409.0473): ``v . tanh(keys + query W)``;
    ``normalize`` rescales ``v`` to the norm ``attention_g`` (from
    sqrt(1/units)) and adds ``attention_b`` in the tanh (arXiv:1602.07868)."""

    scope = "bahdanau_attention"

    def __init__(self, params: Params, num_units: int, memory_depth: int,
                 normalize: bool = False, scope: str = "",
                 probability_fn: Optional[Callable] = None, score_mask_value=None,
                 custom_key_value_fn: Optional[Callable] = None):  # fmt: skip
        super().__init__(params, num_units, memory_depth, scope, probability_fn,
                         score_mask_value, custom_key_value_fn)  # fmt: skip
        self.normalize = normalize

    def build(self, params, prefix, query_depth):
        name, units = _under(prefix, "bahdanau_attention"), self.units
        self.query_kernel = params.create(
            f"{name}/query_layer/kernel", [query_depth, units], glorot_uniform
        )
        self.v = params.create(f"{name}/attention_v", [units], glorot_uniform)
        if self.normalize:
            norm = math.sqrt(1.0 / units)
            self.g = params.create(f"{name}/attention_g", [], lambda s, _: tf.fill(s, norm))
            self.b = params.create(f"{name}/attention_b", [units], zeros)

    def score(self, query):
        keys = self.memory.keys
        processed = tf.expand_dims(tf.matmul(query, read(self.query_kernel, query)), 1)
        v = read(self.v, query)
        if not self.normalize:
            return tf.reduce_sum(v * tf.tanh(keys + processed), [2])
        g, b = read(self.g, query), read(self.b, query)
        normed_v = g * v * tf.math.rsqrt(tf.reduce_sum(tf.square(v)))
        return tf.reduce_sum(normed_v * tf.tanh(keys + processed + b), [2])


class AttentionWrapperState(NamedTuple):
    """TF1's fields in TF1's order (so flattened states line up):
    ``alignment_history`` is always ``()`` here."""

    cell_state: State
    attention: tf.Tensor
    time: tf.Tensor
    alignments: tf.Tensor
    alignment_history: tuple
    attention_state: tf.Tensor

    def clone(self, **kwargs) -> AttentionWrapperState:
        """TF1's spelling of ``_replace``."""
        return self._replace(**kwargs)


class AttentionWrapper(_Cell):
    """``AttentionWrapper(cell, mechanism, attention_layer_size=None,
    output_attention=True, name=None)``: each step feeds ``concat([inputs,
    last attention])`` to the cell, queries the mechanism with the cell's
    output, and makes the attention from the context (the memory weighted by
    the alignments), through ``attention_layer`` (``[output, context] K``, no
    bias) when sized. It outputs the attention, or the cell's output."""

    scope = "attention_wrapper"

    def __init__(self, cell: _Cell, attention_mechanism: _Mechanism,
                 attention_layer_size: Optional[int] = None, alignment_history: bool = False,
                 cell_input_fn: Optional[Callable] = None, output_attention: bool = True,
                 initial_cell_state=None, name: Optional[str] = None, attention_layer=None,
                 attention_fn: Optional[Callable] = None):  # fmt: skip
        _refuse({
            "several attention mechanisms in one AttentionWrapper":
                isinstance(attention_mechanism, (list, tuple)),
            "AttentionWrapper(alignment_history=True)": alignment_history,
            "a custom cell_input_fn (TF1's default concatenates inputs and attention)":
                cell_input_fn is not None,
            "AttentionWrapper(initial_cell_state=...): give the zero state's "
            "clone(cell_state=...) as the initial state": initial_cell_state is not None,
            "a user's attention_layer (attention_layer_size makes TF1's)":
                attention_layer is not None,
            "a custom attention_fn": attention_fn is not None,
        })  # fmt: skip
        if not isinstance(attention_mechanism, _Mechanism):
            raise TypeError(
                "attention_mechanism must be a tf1_train.tf2.attention mechanism, "
                f"got {type(attention_mechanism).__name__}"
            )
        self.cell, self.mechanism = cell, attention_mechanism
        self.layer_size, self.output_attention = attention_layer_size, output_attention
        self.attention_depth = attention_layer_size or attention_mechanism.depth
        self.units = self.attention_depth if output_attention else cell.units
        if name:
            self.scope = name

    def build(self, params, prefix, depth):
        name = self._under(prefix)
        out = self.cell.build(params, name, depth + self.attention_depth)
        self.mechanism.build(params, name, out)
        if self.layer_size:
            shape = [out + self.mechanism.depth, self.layer_size]
            self.layer = params.create(f"{name}/attention_layer/kernel", shape, glorot_uniform)
        return self.attention_depth if self.output_attention else out

    def zero_state(self, batch, dtype) -> AttentionWrapperState:
        """The cell's zero state, zero attention, zero alignments (the
        mechanism's memory must be set up: they are as long as it)."""
        return AttentionWrapperState(
            cell_state=self.cell.zero_state(batch, dtype),
            attention=tf.zeros([batch, self.attention_depth], dtype),
            time=tf.zeros([], tf.int32),
            alignments=self.mechanism.initial_alignments(batch, dtype),
            alignment_history=(),
            attention_state=self.mechanism.initial_alignments(batch, dtype),
        )

    def __call__(self, x, state: AttentionWrapperState):
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(f"state must be an AttentionWrapperState, got {type(state)}")
        cell_output, cell_state = self.cell(tf.concat([x, state.attention], -1), state.cell_state)
        alignments, attention_state = self.mechanism(cell_output, state.attention_state)
        values = self.mechanism.memory.values
        context = tf.squeeze(tf.matmul(tf.expand_dims(alignments, 1), values), [1])
        attention = context
        if self.layer_size:
            joined = tf.concat([cell_output, context], 1)
            attention = tf.matmul(joined, read(self.layer, joined))
        new = AttentionWrapperState(cell_state, attention, state.time + 1, alignments, (),
                                    attention_state)  # fmt: skip
        return (attention if self.output_attention else cell_output), new
