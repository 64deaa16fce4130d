"""``tensorflow.contrib.crf``: the linear-chain CRF of the BiLSTM-CRF taggers
(named-entity recognition, chunking), as TF 1.15 defined it.

The score of a tag sequence is the sum of its unary potentials (the
tagger's logits) and of the transition matrix's entries between successive
tags; ``crf_log_likelihood`` subtracts the log partition function, which
the forward algorithm computes as a ``dynamic_rnn`` over
``CrfForwardRnnCell``'s step (a logsumexp per step), and makes the ``transitions``
variable in the current scope when none is given. ``crf_decode`` is Viterbi
in the graph (a forward pass of backpointers, a backward pass reading them),
``viterbi_decode`` the same in NumPy. A sequence of length 1 takes TF1's
shortcut (no recurrence), chosen statically when the time dimension is
known, by ``tf.cond`` when not, as TF1's ``smart_cond`` did. All of it was
core ops, so these are those ops again: tf1_train.tf2.crf's functions,
the TF2 twin's, given TF1's loop.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tf1_train.tf2 import crf as _twin
from tf1_train.tf2.crf import (  # shared with the TF2 twin: no loop in them
    crf_binary_score,
    crf_sequence_score,
    crf_unary_score,
    decode_backward_step,
    decode_forward_step,
    forward_step,
)

v1 = tf.compat.v1


def _dynamic_rnn(step, inputs, lengths, initial, output_dtype=None):
    """TF1's loop for the CRF's recurrences: ``dynamic_rnn`` over a cell of
    the step, from ``initial``; its ``dtype`` is the outputs' (Viterbi's
    backpointers are int32)."""
    return v1.nn.dynamic_rnn(
        _CrfCell(initial.shape[-1], step), inputs, sequence_length=lengths,
        initial_state=initial, dtype=output_dtype or initial.dtype,
    )  # fmt: skip


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """The log of the summed scores of every sequence the bitmap allows."""
    return _twin.crf_multitag_sequence_score(
        inputs, tag_bitmap, sequence_lengths, transition_params, _dynamic_rnn
    )


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence: [batch]."""
    return _twin.crf_log_norm(inputs, sequence_lengths, transition_params, _dynamic_rnn)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(log-likelihood of each tag sequence [batch], the transition matrix:
    ``transitions`` [num_tags, num_tags] made in the current variable scope
    unless given)."""
    num_tags = inputs.shape[2]
    if transition_params is None:
        transition_params = v1.get_variable("transitions", [num_tags, num_tags])
    scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    return scores - crf_log_norm(inputs, sequence_lengths, transition_params), transition_params


class _CrfCell:
    """What dynamic_rnn asks of a cell; TF1's CRF cells were RNNCells that
    overrode ``__call__`` and made no variables. Their steps are the twin's."""

    def __init__(self, size, step):
        self._size, self._step = size, step

    @property
    def state_size(self):
        return self._size

    @property
    def output_size(self):
        return self._size

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, self.state_size], dtype)

    def __call__(self, inputs, state, scope=None):
        return self._step(inputs, state)


class CrfForwardRnnCell(_CrfCell):
    """The forward algorithm's step: alphas' logsumexp with the transitions."""

    def __init__(self, transition_params):
        super().__init__(transition_params.shape[0], forward_step(transition_params))


class CrfDecodeForwardRnnCell(_CrfCell):
    """Viterbi's forward step: the best previous tag (backpointers) and score."""

    def __init__(self, transition_params):
        super().__init__(transition_params.shape[0], decode_forward_step(transition_params))


class CrfDecodeBackwardRnnCell(_CrfCell):
    """Viterbi's backward step: the tag the next step's backpointer names."""

    def __init__(self, num_tags):
        del num_tags  # its state is one tag
        super().__init__(1, decode_backward_step)


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
    return _twin.crf_decode(potentials, transition_params, sequence_length, _dynamic_rnn)


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
