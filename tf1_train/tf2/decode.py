"""TF1 contrib's ``seq2seq`` dynamic decoding for a TF2 twin: ``BasicDecoder``,
``dynamic_decode`` with a ``TrainingHelper`` (teacher forcing) or a
``GreedyEmbeddingHelper``, and ``sequence_loss``: TF 1.15's steps in its
order (tf1_train/compat/_contrib_decode.py keeps them for TF1 code), the
cell and the output layer on its names (``decoder/<cell scope>/...``,
``decoder/output_projection/kernel``), so a twin restores the TF1
checkpoint and computes its numbers, eagerly or in a ``tf.function``
(tests/test_tf2_decode.py). The attention around the cell:
tf1_train/tf2/attention.py.

TF1 made the variables at the first step, in ``dynamic_decode``'s scope;
here ``BasicDecoder`` makes them, under its ``scope``, and
``dynamic_decode(decoder, helper, initial_state)`` runs it. Where TF1's v1
``where`` picked whole rows by a ``[batch]`` condition, the
condition is reshaped to broadcast over the rows (TF2's ``tf.where`` would
broadcast it over the last axis).

Left out (``dynamic_decode`` refuses them in one ``NotImplementedError``
line): the other helpers (scheduled sampling, sampling, inference, custom)
and decoders (a user's ``Decoder`` subclass); beam search:
tf1_train/tf2/beam_search.py.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional, Union

import tensorflow as tf

from tf1_train.tf2.attention import left_out
from tf1_train.tf2.layers import Params, glorot_uniform, graph_code, read, zeros
from tf1_train.tf2.rnn_cells import _Cell


class BasicDecoderOutput(NamedTuple):
    rnn_output: tf.Tensor
    sample_id: tf.Tensor


def _time_major(x: tf.Tensor) -> tf.Tensor:
    """``[batch, time, ...]`` <-> ``[time, batch, ...]``."""
    return tf.transpose(x, [1, 0, *range(2, x.shape.rank)])


def _rows(condition: tf.Tensor, picked: tf.Tensor, other: tf.Tensor) -> tf.Tensor:
    """``picked``'s rows where the ``[batch]`` condition holds, ``other``'s
    elsewhere (TF1's v1 ``where`` on a vector condition)."""
    mask = tf.reshape(condition, [-1] + [1] * (other.shape.rank - 1))
    return tf.where(mask, picked, other)


class TrainingHelper:
    """Teacher forcing: step t reads ``inputs[:, t]``; a sequence is
    finished once ``t + 1 >= sequence_length``; zeros are read once all are."""

    def __init__(self, inputs: tf.Tensor, sequence_length, time_major: bool = False):
        inputs = tf.convert_to_tensor(inputs, name="inputs")
        self._steps = inputs if time_major else _time_major(inputs)
        self.sequence_length = tf.convert_to_tensor(sequence_length, name="sequence_length")
        if self.sequence_length.shape.rank != 1:
            raise ValueError(
                "Expected sequence_length to be a vector, but received shape: "
                f"{self.sequence_length.shape}"
            )
        self.batch_size = tf.size(self.sequence_length)

    def _read(self, time, finished) -> tf.Tensor:
        return tf.cond(
            tf.reduce_all(finished),
            lambda: tf.zeros_like(self._steps[0]),
            lambda: tf.gather(self._steps, time),
        )

    def initialize(self):
        """``(finished, first inputs)``."""
        finished = tf.equal(0, self.sequence_length)
        return finished, self._read(0, finished)

    def sample(self, time, outputs: tf.Tensor) -> tf.Tensor:
        return tf.cast(tf.argmax(outputs, axis=-1), tf.int32)

    def next_inputs(self, time, outputs, sample_ids):
        """``(finished, next inputs)``."""
        finished = time + 1 >= self.sequence_length
        return finished, self._read(time + 1, finished)


class GreedyEmbeddingHelper:
    """Inference: start from ``start_tokens``' embeddings, feed back the
    embedding of each step's argmax, finish a sequence at ``end_token``.
    ``embedding``: the table (a variable of the twin's) or a function of ids."""

    def __init__(self, embedding: Union[tf.Variable, Callable], start_tokens, end_token):
        self._embed = embedding if callable(embedding) else (
            lambda ids: tf.nn.embedding_lookup(embedding, ids)
        )  # fmt: skip
        self.start_tokens = tf.convert_to_tensor(start_tokens, tf.int32, name="start_tokens")
        self.end_token = tf.convert_to_tensor(end_token, tf.int32, name="end_token")
        if self.start_tokens.shape.rank != 1:
            raise ValueError("start_tokens must be a vector")
        if self.end_token.shape.rank != 0:
            raise ValueError("end_token must be a scalar")
        self.batch_size = tf.size(self.start_tokens)
        self._start_inputs = self._embed(self.start_tokens)

    def initialize(self):
        return tf.zeros_like(self.start_tokens, tf.bool), self._start_inputs

    def sample(self, time, outputs: tf.Tensor) -> tf.Tensor:
        return tf.argmax(outputs, axis=-1, output_type=tf.int32)

    def next_inputs(self, time, outputs, sample_ids):
        finished = tf.equal(sample_ids, self.end_token)
        inputs = tf.cond(
            tf.reduce_all(finished), lambda: self._start_inputs, lambda: self._embed(sample_ids)
        )
        return finished, inputs


Helper = Union[TrainingHelper, GreedyEmbeddingHelper]


class BasicDecoder:
    """``BasicDecoder(cell, helper, initial_state, output_layer)``'s
    variables: the cell built for ``depth``-wide inputs under ``scope``
    (TF1's ``dynamic_decode`` scope, ``decoder`` by default) and, with
    ``output_size``, TF1's dense output layer (``tf.layers.Dense(output_size,
    use_bias, name=output_name)``: ``<scope>/<output_name>/kernel``, ``bias``)."""

    def __init__(self, params: Params, cell: _Cell, depth: int,
                 output_size: Optional[int] = None, scope: str = "decoder",
                 output_name: str = "output_projection", output_use_bias: bool = True):  # fmt: skip
        self.cell = cell
        out = cell.build(params, scope, depth)
        self.kernel = self.bias = None
        if output_size:
            name = f"{scope}/{output_name}" if scope else output_name
            self.kernel = params.create(f"{name}/kernel", [out, output_size], glorot_uniform)
            if output_use_bias:
                self.bias = params.create(f"{name}/bias", [output_size], zeros)
        self.output_depth = output_size or out

    def project(self, inputs, state):
        """``(outputs, next state)``: the cell, then the output layer."""
        outputs, state = self.cell(inputs, state)
        if self.kernel is not None:
            outputs = tf.matmul(outputs, read(self.kernel, outputs))
            if self.bias is not None:
                outputs = tf.nn.bias_add(outputs, read(self.bias, outputs))
        return outputs, state

    def step(self, time, inputs, state, helper: Helper):
        """``(BasicDecoderOutput, next state, next inputs, finished)``."""
        outputs, state = self.project(inputs, state)
        sample_ids = helper.sample(time, outputs)
        finished, next_inputs = helper.next_inputs(time, outputs, sample_ids)
        return BasicDecoderOutput(outputs, sample_ids), state, next_inputs, finished


def _output_arrays(decoder: BasicDecoder, dtype, batch) -> BasicDecoderOutput:
    static = tf.get_static_value(batch)
    return BasicDecoderOutput(
        tf.TensorArray(dtype, size=0, dynamic_size=True,
                       element_shape=[static, decoder.output_depth]),
        tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=[static]),
    )  # fmt: skip


@graph_code
def dynamic_decode(decoder: BasicDecoder, helper: Optional[Helper] = None, initial_state=None,
                   output_time_major: bool = False, impute_finished: bool = False,
                   maximum_iterations=None, parallel_iterations: int = 32,
                   swap_memory: bool = False):  # fmt: skip
    """``(outputs, final state, lengths)``: ``decoder`` stepped from
    ``initial_state`` in a while loop until every sequence is finished (or
    ``maximum_iterations``). A sequence's length is the step it first
    finished at; ``impute_finished`` zeroes a finished sequence's outputs
    and carries its state through unchanged. Outputs are batch-major unless
    ``output_time_major``.

    A ``tf1_train.tf2.beam_search.BeamSearchDecoder`` holds its own start
    and initial state, as TF1's did: ``dynamic_decode(beam_decoder,
    maximum_iterations=...)`` (its outputs: TF1's beam search outputs)."""
    from tf1_train.tf2 import beam_search  # it builds on this module

    if isinstance(decoder, beam_search.BeamSearchDecoder):
        if helper is not None or initial_state is not None:
            raise ValueError("a BeamSearchDecoder takes no helper or initial_state here: "
                             "it was given its start tokens and initial state")  # fmt: skip
        if impute_finished:
            raise left_out("impute_finished with a BeamSearchDecoder")
        return beam_search.decode_beams(decoder, output_time_major, maximum_iterations,
                                        parallel_iterations, swap_memory)  # fmt: skip
    if not isinstance(decoder, BasicDecoder):
        raise left_out(
            f"decoders other than BasicDecoder and BeamSearchDecoder (got {type(decoder).__name__})"
        )
    if helper is None:
        raise ValueError("dynamic_decode of a BasicDecoder needs its helper and initial_state")
    if not isinstance(helper, (TrainingHelper, GreedyEmbeddingHelper)):
        raise left_out(
            "helpers other than TrainingHelper and GreedyEmbeddingHelper "
            f"(got {type(helper).__name__})"
        )
    if initial_state is None:
        raise ValueError("dynamic_decode of a BasicDecoder needs its helper and initial_state")
    finished, inputs = helper.initialize()
    dtype = tf.nest.flatten(initial_state)[0].dtype
    batch = helper.batch_size
    zero_outputs = BasicDecoderOutput(
        tf.zeros([batch, decoder.output_depth], dtype), tf.zeros([batch], tf.int32)
    )

    def step(time, inputs, state, finished):
        outputs, next_state, next_inputs, now_finished = decoder.step(time, inputs, state, helper)
        if impute_finished:
            outputs = tf.nest.map_structure(
                lambda out, zero: _rows(finished, zero, out), outputs, zero_outputs
            )
            next_state = tf.nest.map_structure(
                lambda new, old: new if new.shape.rank == 0 else _rows(finished, old, new),
                next_state, state,
            )  # fmt: skip
        return outputs, next_state, next_inputs, tf.logical_or(now_finished, finished)

    outputs, state, lengths = decode_loop(
        step, finished, inputs, initial_state, _output_arrays(decoder, dtype, batch),
        maximum_iterations, parallel_iterations, swap_memory,
    )  # fmt: skip
    if not output_time_major:
        outputs = tf.nest.map_structure(_time_major, outputs)
    return outputs, state, lengths


def decode_loop(step, finished, inputs, state, arrays, maximum_iterations=None,
                parallel_iterations: int = 32, swap_memory: bool = False):  # fmt: skip
    """TF1's ``dynamic_decode`` loop, for a basic and a beam-search decoder:
    ``step(time, inputs, state, finished) -> (outputs, next state, next
    inputs, next finished)`` until every sequence is finished (or
    ``maximum_iterations``); a sequence's length is the step it first
    finished at. ``(time-major stacked outputs, final state, lengths)``."""
    if maximum_iterations is not None:
        maximum_iterations = tf.convert_to_tensor(maximum_iterations, tf.int32)
        if maximum_iterations.shape.rank != 0:
            raise ValueError("maximum_iterations must be a scalar")
        finished = tf.logical_or(finished, 0 >= maximum_iterations)

    def body(time, arrays, state, inputs, finished, lengths):
        outputs, next_state, next_inputs, next_finished = step(time, inputs, state, finished)
        lengths = tf.where(finished, lengths, tf.fill(tf.shape(lengths), time + 1))
        arrays = tf.nest.map_structure(lambda ta, out: ta.write(time, out), arrays, outputs)
        return time + 1, arrays, next_state, next_inputs, next_finished, lengths

    loop = tf.while_loop(
        lambda *loop_vars: tf.logical_not(tf.reduce_all(loop_vars[4])), body,
        (tf.constant(0), arrays, state, inputs, finished, tf.zeros_like(finished, tf.int32)),
        parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations,
        swap_memory=swap_memory,
    )  # fmt: skip
    return tf.nest.map_structure(lambda ta: ta.stack(), loop[1]), loop[2], loop[5]


def sequence_loss(logits: tf.Tensor, targets: tf.Tensor, weights: tf.Tensor,
                  average_across_timesteps: bool = True, average_across_batch: bool = True,
                  sum_over_timesteps: bool = False, sum_over_batch: bool = False,
                  softmax_loss_function: Optional[Callable] = None) -> tf.Tensor:  # fmt: skip
    """TF 1.15's ``seq2seq.sequence_loss``: the weighted cross-entropy of
    ``[batch, time, classes]`` logits, averaged (over the summed weights) or
    summed (then divided by the count of nonzero weights) over the time steps
    and/or the batch as the flags ask; neither: ``[batch, time]``."""
    for tensor, rank, what in ((logits, 3, "Logits"), (targets, 2, "Targets"),
                               (weights, 2, "Weights")):  # fmt: skip
        if tensor.shape.rank != rank:
            tail = "x logits] tensor" if rank == 3 else "] tensor"
            raise ValueError(f"{what} must be a [batch_size x sequence_length {tail}")
    for average, total, axis in ((average_across_timesteps, sum_over_timesteps, "timesteps"),
                                 (average_across_batch, sum_over_batch, "batch")):  # fmt: skip
        if average and total:
            raise ValueError(
                f"average_across_{axis} and sum_over_{axis} cannot be set to True at same time."
            )
    labels, flat = tf.reshape(targets, [-1]), tf.reshape(logits, [-1, tf.shape(logits)[2]])
    loss_fn = softmax_loss_function or tf.nn.sparse_softmax_cross_entropy_with_logits
    losses = loss_fn(labels=labels, logits=flat) * tf.reshape(weights, [-1])
    if average_across_timesteps and average_across_batch:
        return tf.math.divide_no_nan(tf.reduce_sum(losses), tf.reduce_sum(weights))
    if sum_over_timesteps and sum_over_batch:
        nonzero = tf.cast(tf.math.count_nonzero(weights), losses.dtype)
        return tf.math.divide_no_nan(tf.reduce_sum(losses), nonzero)
    losses = tf.reshape(losses, tf.shape(logits)[:2])
    if average_across_timesteps or average_across_batch:
        axis = 0 if average_across_batch else 1
        return tf.math.divide_no_nan(tf.reduce_sum(losses, axis), tf.reduce_sum(weights, axis))
    if sum_over_timesteps or sum_over_batch:
        axis = 0 if sum_over_batch else 1
        nonzero = tf.cast(tf.math.count_nonzero(weights, axis), losses.dtype)
        return tf.math.divide_no_nan(tf.reduce_sum(losses, axis), nonzero)
    return losses
