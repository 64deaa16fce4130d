"""contrib.crf's linear-chain CRF for a TF2 twin (the BiLSTM-CRF taggers):
TF1's ops step for step, the forward algorithm and Viterbi stepped by
tf1_train.tf2.rnn's loop where TF1 ran ``dynamic_rnn`` (unrolled over a
static time dimension, a while loop over one known only at run time; past
each length the state kept and the output zero, as dynamic_rnn did), and
the ``transitions`` variable on TF1's name, so a twin restores the TF1
checkpoint as it is.

No maintained TF2 package has it: TensorFlow Addons' copy ended with
Addons. tf1_train.compat's ``tensorflow.contrib.crf`` is these functions
given TF1's loop (``dynamic_rnn``, the ``loop`` argument), so the two
differ in the loop alone.
"""

from __future__ import annotations

from typing import Callable, Tuple

import tensorflow as tf

from tf1_train.tf2.layers import Params, glorot_uniform, graph_code
from tf1_train.tf2.rnn import _unroll


def smart_cond(inputs: tf.Tensor, single: Callable, multi: Callable):
    """``single()`` when the time dimension is 1, ``multi()`` otherwise:
    decided now when the static shape says, by tf.cond when it does not
    (TF1's ``smart_cond``)."""
    steps = inputs.shape[1]
    if steps is not None:
        return single() if steps == 1 else multi()
    return tf.cond(tf.equal(tf.shape(inputs)[1], 1), single, multi)


def masked(lengths: tf.Tensor, values: tf.Tensor) -> tf.Tensor:
    """Zero where the sequence length is 0 or less."""
    return tf.where(tf.less_equal(lengths, 0), tf.zeros_like(values), values)


@graph_code
def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params) -> tf.Tensor:
    """The unnormalized score of each tag sequence: [batch]."""

    def single():
        batch_size = tf.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = tf.reshape(tf.range(batch_size, dtype=tag_indices.dtype), [-1, 1])
        scores = tf.gather_nd(
            tf.squeeze(inputs, [1]), tf.concat([example_inds, tag_indices], axis=1)
        )
        return masked(sequence_lengths, scores)

    def multi():
        unary = crf_unary_score(tag_indices, sequence_lengths, inputs)
        return unary + crf_binary_score(tag_indices, sequence_lengths, transition_params)

    return smart_cond(inputs, single, multi)


@graph_code
def crf_unary_score(tag_indices, sequence_lengths, inputs) -> tf.Tensor:
    """The sum of each sequence's unary potentials within its length."""
    batch_size, max_seq_len, num_tags = (tf.shape(inputs)[i] for i in range(3))
    offsets = tf.expand_dims(tf.range(batch_size) * max_seq_len * num_tags, 1)
    offsets += tf.expand_dims(tf.range(max_seq_len) * num_tags, 0)
    if tag_indices.dtype == tf.int64:
        offsets = tf.cast(offsets, tf.int64)
    flat = tf.reshape(offsets + tag_indices, [-1])
    unary = tf.reshape(tf.gather(tf.reshape(inputs, [-1]), flat), [batch_size, max_seq_len])
    masks = tf.sequence_mask(sequence_lengths, tf.shape(tag_indices)[1], dtype=tf.float32)
    return tf.reduce_sum(unary * masks, 1)


@graph_code
def crf_binary_score(tag_indices, sequence_lengths, transition_params) -> tf.Tensor:
    """The sum of each sequence's transition scores within its length."""
    num_tags = transition_params.shape[0]
    num_transitions = tf.shape(tag_indices)[1] - 1
    start = tf.slice(tag_indices, [0, 0], [-1, num_transitions])
    end = tf.slice(tag_indices, [0, 1], [-1, num_transitions])
    binary = tf.gather(tf.reshape(transition_params, [-1]), start * num_tags + end)
    masks = tf.sequence_mask(sequence_lengths, tf.shape(tag_indices)[1], dtype=tf.float32)
    return tf.reduce_sum(binary * tf.slice(masks, [0, 1], [-1, -1]), 1)


class _Step:
    """A CRF step for tf1_train.tf2.rnn's loop: no variables, the state
    given (the first step's scores)."""

    def __init__(self, step: Callable):
        self.step = step

    def __call__(self, inputs, state):
        return self.step(inputs, state)


def twin_loop(step: Callable, inputs, lengths, initial, output_dtype=None):
    """``step`` over the steps of ``inputs`` from ``initial`` as dynamic_rnn
    ran it (past each length: the state kept, a zero output): (outputs,
    final state). tf1_train.compat's CRF passes TF1's own loop instead."""
    return _unroll(_Step(step), inputs, lengths, initial, output_dtype)


def forward_step(transition_params: tf.Tensor) -> Callable:
    """The forward algorithm's step (TF1's ``CrfForwardRnnCell``): alphas'
    logsumexp with the transitions."""
    transitions = tf.expand_dims(transition_params, 0)

    def step(inputs, state):
        new_alphas = inputs + tf.reduce_logsumexp(tf.expand_dims(state, 2) + transitions, [1])
        return new_alphas, new_alphas

    return step


@graph_code
def crf_log_norm(inputs, sequence_lengths, transition_params, loop=twin_loop) -> tf.Tensor:
    """The log partition function of each sequence: [batch]."""
    first_input = tf.squeeze(tf.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def single():
        return masked(sequence_lengths, tf.reduce_logsumexp(first_input, [1]))

    def multi():
        rest = tf.slice(inputs, [0, 1, 0], [-1, -1, -1])
        less_one = tf.maximum(tf.constant(0, sequence_lengths.dtype), sequence_lengths - 1)
        _, alphas = loop(forward_step(transition_params), rest, less_one, first_input)
        return masked(sequence_lengths, tf.reduce_logsumexp(alphas, [1]))

    return smart_cond(inputs, single, multi)


@graph_code
def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params) -> tf.Tensor:
    """The log-likelihood of each tag sequence: [batch]. TF1's function also
    made the transitions when not given; a twin holds them in ``CRF``."""
    scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    return scores - crf_log_norm(inputs, sequence_lengths, transition_params)


@graph_code
def crf_multitag_sequence_score(
    inputs, tag_bitmap, sequence_lengths, transition_params, loop=twin_loop
) -> tf.Tensor:
    """The log of the summed scores of every sequence the bitmap allows."""
    filtered = tf.where(tag_bitmap, inputs, tf.fill(tf.shape(inputs), float("-inf")))
    return smart_cond(
        inputs,
        lambda: tf.reduce_logsumexp(filtered, axis=[1, 2], keepdims=False),
        lambda: crf_log_norm(filtered, sequence_lengths, transition_params, loop),
    )


def decode_forward_step(transition_params: tf.Tensor) -> Callable:
    """Viterbi's forward step (``CrfDecodeForwardRnnCell``): the best
    previous tag of each tag (backpointers) and its score."""
    transitions = tf.expand_dims(transition_params, 0)

    def step(inputs, state):
        scores = tf.expand_dims(state, 2) + transitions  # [B, O, O]
        return tf.cast(tf.argmax(scores, 1), tf.int32), inputs + tf.reduce_max(scores, [1])

    return step


def decode_backward_step(inputs, state):
    """Viterbi's backward step (``CrfDecodeBackwardRnnCell``): the tag the
    next step's backpointer names."""
    state = tf.squeeze(state, axis=[1])
    indices = tf.stack([tf.range(tf.shape(inputs)[0]), state], axis=1)
    new_tags = tf.expand_dims(tf.gather_nd(inputs, indices), axis=-1)
    return new_tags, new_tags


@graph_code
def crf_decode(
    potentials, transition_params, sequence_length, loop=twin_loop
) -> Tuple[tf.Tensor, tf.Tensor]:
    """(best tags [batch, max_seq_len] int32, their scores [batch])."""

    def single():
        squeezed = tf.squeeze(potentials, [1])
        tags = tf.expand_dims(tf.argmax(squeezed, axis=1), 1)
        return tf.cast(tags, tf.int32), tf.reduce_max(squeezed, axis=1)

    def multi():
        initial = tf.squeeze(tf.slice(potentials, [0, 0, 0], [-1, 1, -1]), axis=[1])
        inputs = tf.slice(potentials, [0, 1, 0], [-1, -1, -1])
        less_one = tf.maximum(tf.constant(0, sequence_length.dtype), sequence_length - 1)
        forward = decode_forward_step(transition_params)
        backpointers, last_score = loop(forward, inputs, less_one, initial, tf.int32)
        backpointers = tf.reverse_sequence(backpointers, less_one, seq_axis=1)
        last = tf.expand_dims(tf.cast(tf.argmax(last_score, axis=1), tf.int32), axis=-1)
        tags, _ = loop(decode_backward_step, backpointers, less_one, last)
        tags = tf.concat([last, tf.squeeze(tags, axis=[2])], axis=1)
        tags = tf.reverse_sequence(tags, sequence_length, seq_axis=1)
        return tags, tf.reduce_max(last_score, axis=1)

    return smart_cond(potentials, single, multi)


class CRF:
    """A twin's CRF layer: the ``transitions`` matrix [num_tags, num_tags]
    that TF1's ``crf_log_likelihood`` made in the current variable scope
    (``scope/transitions``; none given: at the top), with the log-likelihood
    and Viterbi decoding on it."""

    def __init__(self, params: Params, num_tags: int, scope: str = ""):
        name = f"{scope}/transitions" if scope else "transitions"
        # get_variable's default initializer, as TF1 made it
        self.transitions = params.create(name, [num_tags, num_tags], glorot_uniform)

    def log_likelihood(self, inputs, tag_indices, sequence_lengths) -> tf.Tensor:
        return crf_log_likelihood(inputs, tag_indices, sequence_lengths, self.transitions)

    def decode(self, potentials, sequence_length) -> Tuple[tf.Tensor, tf.Tensor]:
        return crf_decode(potentials, self.transitions, sequence_length)
