"""``tf.contrib.seq2seq``'s decoding loop: ``Decoder``, ``dynamic_decode``,
``BasicDecoder`` and ``sequence_loss``, as TF 1.15 computed them.

NMT, Tacotron and the chatbots of 2017-19 decode with these: a ``Decoder``
says how to start and how to take one step, ``dynamic_decode`` runs the
steps in one ``tf.while_loop`` until every sequence is finished (or
``maximum_iterations``), writing each step's outputs to TensorArrays.
``BasicDecoder`` is a cell, an optional output layer and a ``Helper``
(_contrib_decode_helpers.py) that picks each step's sample and next input.
All of it was core ops: the same ops again, with TF1's selection rules
(``tf.compat.v1.where``: a ``[batch]`` condition picks whole rows, where
TF2's ``tf.where`` would broadcast it over the last axis), variable scopes
(``decoder/`` by default, the cell and output layer under it) and names, so
TF1 checkpoints restore. tests/test_compat_contrib_dynamic_decode.py holds
this to TensorFlow 1.15.5 itself (tests/goldens/contrib_seq2seq_*.json).
"""

from __future__ import annotations

import collections
from typing import Optional

import tensorflow as tf

from tf1_train.compat import rnn_cell

v1 = tf.compat.v1
nest = tf.nest


class Decoder:
    """TF1's abstract decoder: ``batch_size``, ``output_size``,
    ``output_dtype``, ``initialize() -> (finished, inputs, state)`` and
    ``step(time, inputs, state) -> (outputs, state, inputs, finished)``;
    ``finalize`` is optional. A user's own subclass runs under
    ``dynamic_decode`` as it did."""

    @property
    def batch_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    @property
    def output_dtype(self):
        raise NotImplementedError

    def initialize(self, name=None):
        raise NotImplementedError

    def step(self, time, inputs, state, name=None):
        raise NotImplementedError

    def finalize(self, outputs, final_state, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        """True for a decoder that reorders its batch between steps (beam
        search): then its own ``finished`` is taken as is, not or-ed with the
        last step's."""
        return False


def _zeros(size, dtype, batch_size):
    """Zeros of ``[batch_size] + size`` for each leaf of ``size`` (TF1's
    own zero-state helper, which the legacy cells still use)."""
    return nest.map_structure(
        lambda s, d: rnn_cell._impl._zero_state_tensors(s, batch_size, d), size, dtype
    )


def _transpose_batch_time(x: tf.Tensor) -> tf.Tensor:
    """``[time, batch, ...]`` <-> ``[batch, time, ...]``; rank < 2 unchanged."""
    rank = x.shape.rank
    if rank is not None and rank < 2:
        return x
    return tf.transpose(x, tf.concat([[1, 0], tf.range(2, tf.rank(x))], 0))


def _output_arrays(decoder: Decoder):
    """One dynamic TensorArray per output, its elements ``[batch] + size``."""
    static_batch = tf.get_static_value(tf.convert_to_tensor(decoder.batch_size))

    def array(size, dtype):
        shape = tf.TensorShape(size)
        element = None if shape.rank in (None, 0) else tf.TensorShape([static_batch]) + shape
        return tf.TensorArray(dtype=dtype, size=0, dynamic_size=True, element_shape=element)

    return nest.map_structure(array, decoder.output_size, decoder.output_dtype)


def dynamic_decode(decoder: Decoder, output_time_major: bool = False,
                   impute_finished: bool = False, maximum_iterations=None,
                   parallel_iterations: int = 32, swap_memory: bool = False,
                   scope=None, **kwargs):  # fmt: skip
    """``(final_outputs, final_state, final_sequence_lengths)``: ``decoder``
    stepped in a while loop until all its sequences are finished. A
    sequence's length is the step at which it first finished;
    ``impute_finished`` zeroes a finished sequence's outputs and carries its
    state through unchanged."""
    if kwargs:
        raise TypeError(
            f"dynamic_decode() got {sorted(kwargs)}: TF 1.15 took those only for its "
            "Keras BaseDecoder, which tf.contrib.seq2seq did not export"
        )
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with v1.variable_scope(scope, "decoder") as varscope:
        if not _in_while_loop() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        if maximum_iterations is not None:
            maximum_iterations = tf.convert_to_tensor(
                maximum_iterations, tf.int32, name="maximum_iterations"
            )
            if maximum_iterations.shape.rank != 0:
                raise ValueError("maximum_iterations must be a scalar")
        finished, inputs, state = decoder.initialize()
        zero_outputs = _zeros(decoder.output_size, decoder.output_dtype, decoder.batch_size)
        if maximum_iterations is not None:
            finished = tf.logical_or(finished, 0 >= maximum_iterations)
        lengths = tf.zeros_like(finished, dtype=tf.int32)

        def condition(time, outputs_ta, state, inputs, finished, lengths):
            return tf.logical_not(tf.reduce_all(finished))

        def body(time, outputs_ta, state, inputs, finished, lengths):
            outputs, next_state, next_inputs, step_finished = decoder.step(time, inputs, state)
            if not decoder.tracks_own_finished:
                step_finished = tf.logical_or(step_finished, finished)
            lengths = v1.where(
                tf.logical_not(finished), tf.fill(tf.shape(lengths), time + 1), lengths
            )
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(outputs_ta, outputs)
            nest.assert_same_structure(inputs, next_inputs)
            if impute_finished:
                outputs = nest.map_structure(
                    lambda out, zero: v1.where(finished, zero, out), outputs, zero_outputs
                )
                next_state = nest.map_structure(
                    lambda new, cur: _keep_finished(finished, new, cur), next_state, state
                )
            outputs_ta = nest.map_structure(
                lambda ta, out: ta.write(time, out), outputs_ta, outputs
            )
            return time + 1, outputs_ta, next_state, next_inputs, step_finished, lengths

        loop = v1.while_loop(
            condition, body,
            loop_vars=(tf.constant(0, tf.int32), _output_arrays(decoder), state, inputs,
                       finished, lengths),
            parallel_iterations=parallel_iterations,
            maximum_iterations=maximum_iterations, swap_memory=swap_memory,
        )  # fmt: skip
        final_outputs = nest.map_structure(lambda ta: ta.stack(), loop[1])
        final_state, final_lengths = loop[2], loop[5]
        try:
            final_outputs, final_state = decoder.finalize(final_outputs, final_state, final_lengths)
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = nest.map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_lengths


def _in_while_loop() -> bool:
    """Whether the graph is building inside a while loop (TF1 left the
    caching device alone there)."""
    context = tf.compat.v1.get_default_graph()._get_control_flow_context()
    while context is not None:
        if context.IsWhileContext():
            return True
        context = context.outer_context
    return False


def _keep_finished(finished, new, current):
    """``impute_finished``'s state rule: a finished row keeps its state;
    scalars and TensorArrays pass through."""
    if isinstance(current, tf.TensorArray):
        return new
    new.set_shape(current.shape)
    return new if new.shape.rank == 0 else v1.where(finished, current, new)


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))):
    pass


class BasicDecoder(Decoder):
    """A cell, a helper and an optional output layer: each step runs the
    cell, projects its output, and lets the helper sample and choose the
    next input."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        from tf1_train.compat import _contrib_decode_helpers as helpers

        rnn_cell._impl.assert_like_rnncell("cell", cell)
        if not isinstance(helper, helpers.Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        check_output_layer(output_layer)
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        return projected_size(self._cell.output_size, self._output_layer)

    @property
    def output_size(self) -> BasicDecoderOutput:
        return BasicDecoderOutput(self._rnn_output_size(), self._helper.sample_ids_shape)

    @property
    def output_dtype(self) -> BasicDecoderOutput:
        dtype = nest.flatten(self._initial_state)[0].dtype
        rnn_output = nest.map_structure(lambda _: dtype, self._rnn_output_size())
        return BasicDecoderOutput(rnn_output, self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        with tf.name_scope(name or "BasicDecoderStep"):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids
            )
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


def check_output_layer(layer) -> None:
    """TF1 took a ``tf.layers`` layer (or a Keras one) as the output layer;
    the decoders need its ``compute_output_shape`` to size their outputs."""
    if layer is not None and not callable(getattr(layer, "compute_output_shape", None)):
        raise TypeError(
            f"output_layer must be a Layer with compute_output_shape, received: {type(layer)}"
        )


def projected_size(size, layer):
    """The cell's output size, or what ``layer`` makes of ``[None] + size``."""
    if layer is None:
        return size
    unknown_batch = nest.map_structure(lambda s: tf.TensorShape([None]) + tf.TensorShape(s), size)
    shape = layer.compute_output_shape(unknown_batch)
    return nest.map_structure(lambda s: tf.TensorShape(s)[1:], shape)


def sequence_loss(logits, targets, weights, average_across_timesteps: bool = True,
                  average_across_batch: bool = True, sum_over_timesteps: bool = False,
                  sum_over_batch: bool = False, softmax_loss_function=None,
                  name: Optional[str] = None):  # fmt: skip
    """Weighted cross-entropy of ``[batch, time, classes]`` logits: a scalar
    or per-step/per-sequence means (over the weights' sum) or sums (over the
    count of nonzero weights), as the four flags ask. The TF2 twin's
    function (tf1_train/tf2/decode.py: the same ops, TF 1.15's checks) under
    TF1's name scope."""
    from tf1_train.tf2 import decode as twin

    with tf.name_scope(name or "sequence_loss"):
        return twin.sequence_loss(
            logits, targets, weights, average_across_timesteps, average_across_batch,
            sum_over_timesteps, sum_over_batch, softmax_loss_function,
        )  # fmt: skip
