"""``tensorflow.contrib.crf``: the linear-chain CRF of the BiLSTM-CRF taggers
(named-entity recognition, chunking), as TF 1.15 defined it.

The score of a tag sequence is the sum of its unary potentials (the
tagger's logits) and of the transition matrix's entries between successive
tags; ``crf_log_likelihood`` subtracts the log partition function, which
the forward algorithm computes as a ``dynamic_rnn`` over
``CrfForwardRnnCell`` (a logsumexp per step), and makes the ``transitions``
variable in the current scope when none is given. ``crf_decode`` is Viterbi
in the graph (a forward pass of backpointers, a backward pass reading them),
``viterbi_decode`` the same in NumPy. A sequence of length 1 takes TF1's
shortcut (no recurrence), chosen statically when the time dimension is
known, by ``tf.cond`` when not, as TF1's ``smart_cond`` did. All of it was
core ops, so these are those ops again.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def _smart_cond(inputs, single, multi):
    """``single()`` when the time dimension is 1, ``multi()`` otherwise:
    decided now when the static shape says, by tf.cond when it does not."""
    steps = inputs.shape[1]
    if steps is not None:
        return single() if steps == 1 else multi()
    return tf.cond(tf.equal(tf.shape(inputs)[1], 1), single, multi)


def _masked(lengths, values):
    """Zero where the sequence length is 0 or less."""
    return tf.where(tf.less_equal(lengths, 0), tf.zeros_like(values), values)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence: [batch]."""

    def single():
        batch_size = tf.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = tf.reshape(tf.range(batch_size, dtype=tag_indices.dtype), [-1, 1])
        scores = tf.gather_nd(
            tf.squeeze(inputs, [1]), tf.concat([example_inds, tag_indices], axis=1)
        )
        return _masked(sequence_lengths, scores)

    def multi():
        unary = crf_unary_score(tag_indices, sequence_lengths, inputs)
        return unary + crf_binary_score(tag_indices, sequence_lengths, transition_params)

    return _smart_cond(inputs, single, multi)


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """The log of the summed scores of every sequence the bitmap allows."""
    filtered = tf.where(tag_bitmap, inputs, tf.fill(tf.shape(inputs), float("-inf")))
    return _smart_cond(
        inputs,
        lambda: tf.reduce_logsumexp(filtered, axis=[1, 2], keepdims=False),
        lambda: crf_log_norm(filtered, sequence_lengths, transition_params),
    )


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence: [batch]."""
    first_input = tf.squeeze(tf.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def single():
        return _masked(sequence_lengths, tf.reduce_logsumexp(first_input, [1]))

    def multi():
        rest = tf.slice(inputs, [0, 1, 0], [-1, -1, -1])
        lengths_less_one = tf.maximum(tf.constant(0, sequence_lengths.dtype), sequence_lengths - 1)
        _, alphas = v1.nn.dynamic_rnn(
            CrfForwardRnnCell(transition_params), rest, sequence_length=lengths_less_one,
            initial_state=first_input, dtype=tf.float32,
        )  # fmt: skip
        return _masked(sequence_lengths, tf.reduce_logsumexp(alphas, [1]))

    return _smart_cond(inputs, single, multi)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(log-likelihood of each tag sequence [batch], the transition matrix:
    ``transitions`` [num_tags, num_tags] made in the current variable scope
    unless given)."""
    num_tags = inputs.shape[2]
    if transition_params is None:
        transition_params = v1.get_variable("transitions", [num_tags, num_tags])
    scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    return scores - crf_log_norm(inputs, sequence_lengths, transition_params), transition_params


def crf_unary_score(tag_indices, sequence_lengths, inputs):
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


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The sum of each sequence's transition scores within its length."""
    num_tags = transition_params.shape[0]
    num_transitions = tf.shape(tag_indices)[1] - 1
    start = tf.slice(tag_indices, [0, 0], [-1, num_transitions])
    end = tf.slice(tag_indices, [0, 1], [-1, num_transitions])
    binary = tf.gather(tf.reshape(transition_params, [-1]), start * num_tags + end)
    masks = tf.sequence_mask(sequence_lengths, tf.shape(tag_indices)[1], dtype=tf.float32)
    return tf.reduce_sum(binary * tf.slice(masks, [0, 1], [-1, -1]), 1)


class _CrfCell:
    """What dynamic_rnn asks of a cell; TF1's CRF cells were RNNCells that
    overrode ``__call__`` and made no variables."""

    def __init__(self, num_tags):
        self._num_tags = num_tags

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, self.state_size], dtype)


class CrfForwardRnnCell(_CrfCell):
    """The forward algorithm's step: alphas' logsumexp with the transitions."""

    def __init__(self, transition_params):
        super().__init__(transition_params.shape[0])
        self._transition_params = tf.expand_dims(transition_params, 0)

    def __call__(self, inputs, state, scope=None):
        scores = tf.expand_dims(state, 2) + self._transition_params
        new_alphas = inputs + tf.reduce_logsumexp(scores, [1])
        return new_alphas, new_alphas


class CrfDecodeForwardRnnCell(_CrfCell):
    """Viterbi's forward step: the best previous tag (backpointers) and score."""

    def __init__(self, transition_params):
        super().__init__(transition_params.shape[0])
        self._transition_params = tf.expand_dims(transition_params, 0)

    def __call__(self, inputs, state, scope=None):
        scores = tf.expand_dims(state, 2) + self._transition_params  # [B, O, O]
        new_state = inputs + tf.reduce_max(scores, [1])
        return tf.cast(tf.argmax(scores, 1), tf.int32), new_state


class CrfDecodeBackwardRnnCell(_CrfCell):
    """Viterbi's backward step: the tag the next step's backpointer names."""

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return 1

    def __call__(self, inputs, state, scope=None):
        state = tf.squeeze(state, axis=[1])
        indices = tf.stack([tf.range(tf.shape(inputs)[0]), state], axis=1)
        new_tags = tf.expand_dims(tf.gather_nd(inputs, indices), axis=-1)
        return new_tags, new_tags


def viterbi_decode(score, transition_params):
    """(the best tag sequence as a list, its score) of one unpadded
    ``[seq_len, num_tags]`` score matrix, in NumPy (test time)."""
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    viterbi.extend(bp[viterbi[-1]] for bp in reversed(backpointers[1:]))
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


def crf_decode(potentials, transition_params, sequence_length):
    """(best tags [batch, max_seq_len] int32, their scores [batch]), in the graph."""

    def single():
        squeezed = tf.squeeze(potentials, [1])
        tags = tf.expand_dims(tf.argmax(squeezed, axis=1), 1)
        return tf.cast(tags, tf.int32), tf.reduce_max(squeezed, axis=1)

    def multi():
        initial = tf.squeeze(tf.slice(potentials, [0, 0, 0], [-1, 1, -1]), axis=[1])
        inputs = tf.slice(potentials, [0, 1, 0], [-1, -1, -1])
        less_one = tf.maximum(tf.constant(0, sequence_length.dtype), sequence_length - 1)
        backpointers, last_score = v1.nn.dynamic_rnn(
            CrfDecodeForwardRnnCell(transition_params), inputs, sequence_length=less_one,
            initial_state=initial, time_major=False, dtype=tf.int32,
        )  # fmt: skip
        backpointers = tf.reverse_sequence(backpointers, less_one, seq_axis=1)
        last = tf.expand_dims(tf.cast(tf.argmax(last_score, axis=1), tf.int32), axis=-1)
        tags, _ = v1.nn.dynamic_rnn(
            CrfDecodeBackwardRnnCell(potentials.shape[2]), backpointers,
            sequence_length=less_one, initial_state=last, time_major=False, dtype=tf.int32,
        )  # fmt: skip
        tags = tf.concat([last, tf.squeeze(tags, axis=[2])], axis=1)
        tags = tf.reverse_sequence(tags, sequence_length, seq_axis=1)
        return tags, tf.reduce_max(last_score, axis=1)

    return _smart_cond(potentials, single, multi)


KEPT = {
    f.__name__: f
    for f in (
        crf_sequence_score,
        crf_multitag_sequence_score,
        crf_log_norm,
        crf_log_likelihood,
        crf_unary_score,
        crf_binary_score,
        CrfForwardRnnCell,
        viterbi_decode,
        crf_decode,
        CrfDecodeForwardRnnCell,
        CrfDecodeBackwardRnnCell,
    )
}
