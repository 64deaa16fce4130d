"""``tf.contrib.seq2seq``'s attention as TF 1.15 computed it: the mechanisms
(``BahdanauAttention``, ``LuongAttention``; the monotonic ones and
``hardmax`` are in _contrib_monotonic_attention.py) and ``AttentionWrapper``,
the RNNCell that attends over an encoder's memory at each step.

NMT, Tacotron and the chatbots of 2017-19 wrapped their decoder cell in
these. It was core ops around the cell: the same ops again, in TF1's order,
on TF1's variable names (``memory_layer/kernel`` where the mechanism is
made; under the wrapper's scope the cell's own, ``bahdanau_attention/
query_layer/kernel``, ``attention_v``, ``attention_g``, ``attention_b``,
``luong_attention/attention_g``, ``attention_layer/kernel``) so TF1
checkpoints restore. tests/test_compat_contrib_dynamic_decode.py holds this
to TensorFlow 1.15.5 itself (tests/goldens/contrib_seq2seq_attention.json).
"""

from __future__ import annotations

import collections
import math
from typing import Callable, Optional

import numpy as np
import tensorflow as tf

from tf1_train.compat import rnn_cell
from tf1_train.compat._core import Dense

v1 = tf.compat.v1
nest = tf.nest
_zero_state_tensors = rnn_cell._impl._zero_state_tensors


class AttentionMechanism:
    """What ``AttentionWrapper`` accepts: a mechanism tells its alignments'
    and state's sizes (user subclasses of TF1's base still pass)."""

    @property
    def alignments_size(self):
        raise NotImplementedError

    @property
    def state_size(self):
        raise NotImplementedError


def _prepare_memory(memory, memory_sequence_length=None, check_inner_dims_defined: bool = True):
    """The memory as tensors, zeroed past each row's length: the keys are made
    from it, so padding never reaches a context vector."""
    memory = nest.map_structure(lambda m: tf.convert_to_tensor(m, name="memory"), memory)
    for m in nest.flatten(memory) if check_inner_dims_defined else ():
        if not m.shape[2:].is_fully_defined():
            raise ValueError(f"memory {m.name} needs fully defined inner dims, got {m.shape}")
    if memory_sequence_length is None:
        return memory
    lengths = tf.convert_to_tensor(memory_sequence_length, name="memory_sequence_length")
    first = nest.flatten(memory)[0]
    mask = tf.sequence_mask(lengths, tf.shape(first)[1], dtype=first.dtype)

    def masked(m):
        rank = m.shape.rank if m.shape.rank is not None else tf.rank(m)
        ones = tf.ones(rank - 2, dtype=tf.int32)
        return m * tf.reshape(mask, tf.concat((tf.shape(mask), ones), 0))

    return nest.map_structure(masked, memory)


def _mask_score(score, memory_sequence_length, score_mask_value):
    """``score`` with ``score_mask_value`` past each row's length (checked
    positive at run time), so the probability there is (near) zero."""
    if memory_sequence_length is None:
        return score
    message = "All values in memory_sequence_length must be greater than zero."
    with tf.control_dependencies([v1.assert_positive(memory_sequence_length, message=message)]):
        mask = tf.sequence_mask(memory_sequence_length, maxlen=tf.shape(score)[1])
    return v1.where(mask, score, score_mask_value * tf.ones_like(score))


class _BaseAttentionMechanism(AttentionMechanism):
    """TF1's common part: the masked memory (``values``), its projection by
    ``memory_layer`` (``keys``, made at construction, in the caller's scope)
    and the masked ``probability_fn(score, previous_alignments)``."""

    def __init__(self, query_layer, memory, probability_fn, memory_sequence_length=None,
                 memory_layer=None, check_inner_dims_defined: bool = True,
                 score_mask_value=None, custom_key_value_fn=None, name=None):  # fmt: skip
        if not callable(probability_fn):
            raise TypeError(f"probability_fn must be callable, got {type(probability_fn).__name__}")
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = memory_layer.dtype if memory_layer is not None else tf.float32
        if score_mask_value is None:
            score_mask_value = tf.as_dtype(self.dtype).as_numpy_dtype(-np.inf)
        self._probability_fn = lambda score, prev: probability_fn(
            _mask_score(score, memory_sequence_length, score_mask_value), prev
        )
        with v1.name_scope(name, "BaseAttentionMechanismInit", nest.flatten(memory)):
            self._values = _prepare_memory(memory, memory_sequence_length, check_inner_dims_defined)
            self._keys = self._values if memory_layer is None else memory_layer(self._values)
            if custom_key_value_fn is not None:
                self._keys, self._values = custom_key_value_fn(self._keys, self._values)
            shape = self._keys.shape
            self._batch_size = tf.compat.dimension_value(shape[0]) or tf.shape(self._keys)[0]
            self._alignments_size = tf.compat.dimension_value(shape[1]) or tf.shape(self._keys)[1]

    memory_layer = property(lambda self: self._memory_layer)
    query_layer = property(lambda self: self._query_layer)
    values = property(lambda self: self._values)
    keys = property(lambda self: self._keys)
    batch_size = property(lambda self: self._batch_size)
    alignments_size = property(lambda self: self._alignments_size)
    state_size = property(lambda self: self._alignments_size)

    def initial_alignments(self, batch_size, dtype) -> tf.Tensor:
        """Zeros ``[batch_size, memory time]``: softmax mechanisms ignore them."""
        return _zero_state_tensors(self._alignments_size, batch_size, dtype)

    def initial_state(self, batch_size, dtype):
        return self.initial_alignments(batch_size, dtype)


def _luong_score(mechanism, query) -> tf.Tensor:
    """``[batch, time]``: the query's dot product with each key, times a learnt
    ``attention_g`` (from 1) when scaled. The depths must agree."""
    scale = mechanism._scale
    g = v1.get_variable("attention_g", (), query.dtype, v1.ones_initializer()) if scale else None
    depth, units = (tf.compat.dimension_value(t.shape[-1]) for t in (query, mechanism.keys))
    if depth is not None and units is not None and depth != units:
        raise ValueError(f"query depth {depth} != keys depth {units}: set num_units to {units}")
    score = tf.squeeze(tf.matmul(tf.expand_dims(query, 1), mechanism.keys, transpose_b=True), [1])
    return score if g is None else g * score


def _bahdanau_score(mechanism, query) -> tf.Tensor:
    """``[batch, time]``: ``attention_v . tanh(keys + query_layer(query))``;
    normalized, ``v`` rescaled to norm ``attention_g`` (from sqrt(1/units))
    and ``attention_b`` (from 0) added in the tanh (arXiv:1602.07868)."""
    units, dtype = mechanism._num_units, query.dtype
    layer = mechanism.query_layer
    processed = tf.expand_dims(layer(query) if layer else query, 1)
    v = v1.get_variable("attention_v", [units], dtype)
    if not mechanism._normalize:
        return tf.reduce_sum(v * tf.tanh(mechanism.keys + processed), [2])
    g = v1.get_variable("attention_g", (), dtype, v1.constant_initializer(math.sqrt(1.0 / units)))
    b = v1.get_variable("attention_b", [units], dtype, v1.zeros_initializer())
    normed_v = g * v * tf.math.rsqrt(tf.reduce_sum(tf.square(v)))
    return tf.reduce_sum(normed_v * tf.tanh(mechanism.keys + processed + b), [2])


def _projection(num_units: int, dtype, name: str = "memory_layer") -> Dense:
    """The mechanisms' unbiased ``memory_layer``/``query_layer`` (float32 by default)."""
    return Dense(num_units, name=name, use_bias=False, dtype=dtype or tf.float32)


def _ignoring_state(probability_fn: Optional[Callable]) -> Callable:
    """A user's ``probability_fn(score)`` (softmax by default) as the base calls it."""
    probability_fn = tf.nn.softmax if probability_fn is None else probability_fn
    return lambda score, _: probability_fn(score)


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention (arXiv:1508.04025): the query (the cell's
    output, of depth ``num_units``) against the projected memory; ``scale``
    adds a learnt scalar ``attention_g``."""

    def __init__(self, num_units: int, memory, memory_sequence_length=None, scale: bool = False,
                 probability_fn: Optional[Callable] = None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name: str = "LuongAttention"):  # fmt: skip
        super().__init__(None, memory, _ignoring_state(probability_fn), memory_sequence_length,
                         _projection(num_units, dtype), True, score_mask_value,
                         custom_key_value_fn, name)  # fmt: skip
        self._num_units, self._scale, self._name = num_units, scale, name

    def __call__(self, query, state):
        """``(alignments, next_state)``, both the new alignments."""
        with v1.variable_scope(None, "luong_attention", [query]):
            score = _luong_score(self, query)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention (arXiv:1409.0473): ``v . tanh(keys + query W)``;
    ``normalize`` weight-normalizes ``v`` (arXiv:1602.07868)."""

    def __init__(self, num_units: int, memory, memory_sequence_length=None,
                 normalize: bool = False, probability_fn: Optional[Callable] = None,
                 score_mask_value=None, dtype=None, custom_key_value_fn=None,
                 name: str = "BahdanauAttention"):  # fmt: skip
        super().__init__(_projection(num_units, dtype, "query_layer"), memory,
                         _ignoring_state(probability_fn), memory_sequence_length,
                         _projection(num_units, dtype), True, score_mask_value,
                         custom_key_value_fn, name)  # fmt: skip
        self._num_units, self._normalize, self._name = num_units, normalize, name

    def __call__(self, query, state):
        """``(alignments, next_state)``, both the new alignments."""
        with v1.variable_scope(None, "bahdanau_attention", [query]):
            score = _bahdanau_score(self, query)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(
    collections.namedtuple(
        "AttentionWrapperState",
        ("cell_state", "attention", "time", "alignments", "alignment_history", "attention_state"),
    )
):
    """The wrapper's state: the cell's, the last attention, the step, the
    last alignments (one per mechanism when given a list), their history
    (TensorArrays, or ``()``) and the mechanisms' own states."""

    def clone(self, **kwargs) -> AttentionWrapperState:
        """This state with ``kwargs``' fields replaced; a replacing tensor
        takes the replaced one's static shape (ValueError if they clash)."""

        def same_shape(old, new):
            if isinstance(old, tf.Tensor) and isinstance(new, tf.Tensor):
                new.set_shape(old.shape)
            return new

        return nest.map_structure(same_shape, self, self._replace(**kwargs))


def _compute_attention(attention_mechanism, cell_output, attention_state, attention_layer):
    """``(attention, alignments, next_attention_state)``: the context (the memory
    weighted by the alignments), through ``attention_layer`` with the query."""
    alignments, next_attention_state = attention_mechanism(cell_output, state=attention_state)
    context = tf.matmul(tf.expand_dims(alignments, 1), attention_mechanism.values)
    context = tf.squeeze(context, [1])
    if attention_layer is None:
        return context, alignments, next_attention_state
    attention = attention_layer(tf.concat([cell_output, context], 1))
    return attention, alignments, next_attention_state


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _attention_layers(cell, mechanisms, attention_layer_size, attention_layer):
    """``(layers or None, attention depth)``: TF1's unbiased ``attention_layer``
    Dense per mechanism, the user's layers, or none (the contexts)."""
    if attention_layer_size is not None and attention_layer is not None:
        raise ValueError("give attention_layer_size or attention_layer, not both")
    given = attention_layer_size if attention_layer is None else attention_layer
    if given is not None and len(_as_tuple(given)) != len(mechanisms):
        count = f"{len(_as_tuple(given))} attention layer sizes or layers"
        raise ValueError(f"{count} for {len(mechanisms)} mechanisms: give one per mechanism")
    if attention_layer_size is not None:
        sizes = _as_tuple(attention_layer_size)
        layers = tuple(Dense(size, name="attention_layer", use_bias=False, dtype=m.dtype)
                       for size, m in zip(sizes, mechanisms))  # fmt: skip
        return layers, sum(sizes)
    depths = [tf.compat.dimension_value(m.values.shape[-1]) for m in mechanisms]
    if attention_layer is None:
        return None, sum(depths)
    layers = _as_tuple(attention_layer)
    shapes = [layer.compute_output_shape([None, cell.output_size + depth])
              for layer, depth in zip(layers, depths)]  # fmt: skip
    return layers, sum(tf.compat.dimension_value(shape[-1]) for shape in shapes)


class AttentionWrapper(rnn_cell.RNNCell):
    """``cell`` with attention: each step feeds ``cell_input_fn(inputs, last
    attention)`` to the cell, queries each mechanism with the cell's output and
    makes the new attention from the contexts (through an ``attention_layer``
    when asked). It outputs the attention, or the cell's output."""

    def __init__(self, cell, attention_mechanism, attention_layer_size=None,
                 alignment_history: bool = False, cell_input_fn: Optional[Callable] = None,
                 output_attention: bool = True, initial_cell_state=None,
                 name: Optional[str] = None, attention_layer=None,
                 attention_fn: Optional[Callable] = None, dtype=None):  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        rnn_cell._impl.assert_like_rnncell("cell", cell)
        self._is_multi = isinstance(attention_mechanism, (list, tuple))
        mechanisms = _as_tuple(attention_mechanism)
        bad = [type(m).__name__ for m in mechanisms if not isinstance(m, AttentionMechanism)]
        if bad:
            raise TypeError(f"attention_mechanism must be AttentionMechanism(s), got {bad[0]}")
        if cell_input_fn is None:
            cell_input_fn = lambda inputs, attention: tf.concat([inputs, attention], -1)  # noqa: E731
        elif not callable(cell_input_fn):
            raise TypeError(f"cell_input_fn must be callable, got {type(cell_input_fn).__name__}")
        self._attention_layers, self._attention_layer_size = _attention_layers(
            cell, mechanisms, attention_layer_size, attention_layer
        )
        self._attention_fn = _compute_attention if attention_fn is None else attention_fn
        self._cell, self._attention_mechanisms = cell, mechanisms
        self._cell_input_fn, self._output_attention = cell_input_fn, output_attention
        self._alignment_history = alignment_history
        self._initial_cell_state = None
        if initial_cell_state is not None:
            with v1.name_scope(name, "AttentionWrapperInit"):
                last = nest.flatten(initial_cell_state)[-1]
                batch_size = tf.compat.dimension_value(last.shape[0]) or tf.shape(last)[0]
                self._initial_cell_state = self._checked(
                    initial_cell_state, batch_size, "initial_cell_state", "check_initial_cell_state"
                )

    def _checked(self, tensors, batch_size, what: str, name: str):
        """``tensors`` behind a run-time check that ``batch_size`` is the memory's."""
        message = (f"AttentionWrapper {self._base_name}: {what}'s batch size is not the "
                   "memory's; with beam search, tile both with tile_batch")  # fmt: skip
        checks = [v1.assert_equal(batch_size, m.batch_size, message=message)
                  for m in self._attention_mechanisms]  # fmt: skip
        with tf.control_dependencies(checks):
            return nest.map_structure(lambda t: tf.identity(t, name=name), tensors)

    def _item_or_tuple(self, seq):
        """A tuple when the mechanisms came as a list, else the one item."""
        items = tuple(seq)
        return items if self._is_multi else items[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self) -> AttentionWrapperState:
        mechanisms = self._attention_mechanisms
        return AttentionWrapperState(
            cell_state=self._cell.state_size,
            time=tf.TensorShape([]),
            attention=self._attention_layer_size,
            alignments=self._item_or_tuple(m.alignments_size for m in mechanisms),
            attention_state=self._item_or_tuple(m.state_size for m in mechanisms),
            alignment_history=self._item_or_tuple(
                m.alignments_size if self._alignment_history else () for m in mechanisms
            ),
        )

    def zero_state(self, batch_size, dtype) -> AttentionWrapperState:
        """The first state: the cell's zero state (or ``initial_cell_state``),
        zero attention, the mechanisms' initial alignments, empty histories."""
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            cell_state = self._initial_cell_state
            if cell_state is None:
                cell_state = self._cell.get_initial_state(batch_size=batch_size, dtype=dtype)
            cell_state = self._checked(cell_state, batch_size, "zero_state", "checked_cell_state")
            mechanisms = self._attention_mechanisms
            alignments = [m.initial_alignments(batch_size, dtype) for m in mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state,
                time=tf.zeros([], dtype=tf.int32),
                attention=_zero_state_tensors(self._attention_layer_size, batch_size, dtype),
                alignments=self._item_or_tuple(alignments),
                attention_state=self._item_or_tuple(
                    m.initial_state(batch_size, dtype) for m in mechanisms
                ),
                alignment_history=self._item_or_tuple(
                    tf.TensorArray(dtype, size=0, dynamic_size=True, element_shape=a.shape)
                    if self._alignment_history else () for a in alignments),
            )  # fmt: skip

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        """One step: the cell on the inputs mixed with the last attention,
        then each mechanism queried with the cell's (batch-checked) output."""
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(f"state must be an AttentionWrapperState, got {type(state)}")
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        batch_size = tf.compat.dimension_value(cell_output.shape[0]) or tf.shape(cell_output)[0]
        cell_output = self._checked(cell_output, batch_size, "query", "checked_cell_output")
        multi = self._is_multi
        previous_states = state.attention_state if multi else [state.attention_state]
        histories = list(state.alignment_history) if multi else [state.alignment_history]
        layers = self._attention_layers or [None] * len(self._attention_mechanisms)
        results, attend = [], self._attention_fn  # (attention, alignments, next state)s
        for i, mechanism in enumerate(self._attention_mechanisms):
            results.append(attend(mechanism, cell_output, previous_states[i], layers[i]))
            if self._alignment_history:
                histories[i] = histories[i].write(state.time, results[-1][1])
        attentions, alignments, states = zip(*results)
        attention = tf.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1,
            cell_state=next_cell_state,
            attention=attention,
            attention_state=self._item_or_tuple(states),
            alignments=self._item_or_tuple(alignments),
            alignment_history=self._item_or_tuple(histories),
        )
        return (attention if self._output_attention else cell_output), next_state
