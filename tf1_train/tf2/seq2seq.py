"""contrib.legacy_seq2seq's ``rnn_decoder`` and sequence losses for a TF2
twin (the char-rnn models): the same steps and sums as TF1's
(tf1_train/compat/_contrib_seq2seq.py), with tf1_train.tf2.rnn's cells on
TF1's names (``rnn_decoder/<cell scope>/...``, or the ``scope`` the TF1
code gave), so a twin restores the TF1 checkpoint as it is.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import tensorflow as tf

from tf1_train.tf2.layers import Params
from tf1_train.tf2.rnn_cells import State, _Cell


class RNNDecoder:
    """``legacy_seq2seq.rnn_decoder(decoder_inputs, initial_state, cell,
    loop_function=None, scope=None)``: the cell over a list of ``[batch,
    depth]`` steps from ``initial_state``; ``loop_function(prev_output, i)``
    makes each input after the first from the last output (greedy
    sampling). Returns (outputs, final state)."""

    def __init__(self, params: Params, cell: _Cell, depth: int, scope: str = "rnn_decoder"):
        self.cell = cell
        cell.build(params, scope, depth)

    def __call__(self, decoder_inputs: Sequence[tf.Tensor], initial_state: State,
                 loop_function: Optional[Callable] = None):  # fmt: skip
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                inp = loop_function(prev, i)
            output, state = self.cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
        return outputs, state


def sequence_loss_by_example(
    logits: List[tf.Tensor],
    targets: List[tf.Tensor],
    weights: List[tf.Tensor],
    average_across_timesteps: bool = True,
    softmax_loss_function: Optional[Callable] = None,
) -> tf.Tensor:
    """Per example: the sum over steps of weight * cross-entropy, divided by
    the sum of the weights (+1e-12) when ``average_across_timesteps``."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError(
            "Lengths of logits, weights, and targets must be the same "
            f"{len(logits)}, {len(weights)}, {len(targets)}."
        )
    terms = []
    for logit, target, weight in zip(logits, targets, weights):
        if softmax_loss_function is None:
            crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(target, [-1]), logits=logit
            )
        else:
            crossent = softmax_loss_function(labels=target, logits=logit)
        terms.append(crossent * weight)
    log_perps = tf.add_n(terms)
    if average_across_timesteps:
        log_perps /= tf.add_n(weights) + 1e-12
    return log_perps


def sequence_loss(
    logits: List[tf.Tensor],
    targets: List[tf.Tensor],
    weights: List[tf.Tensor],
    average_across_timesteps: bool = True,
    average_across_batch: bool = True,
    softmax_loss_function: Optional[Callable] = None,
) -> tf.Tensor:
    """The sum over the batch of sequence_loss_by_example, divided by the
    batch size when ``average_across_batch``."""
    cost = tf.reduce_sum(
        sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps, softmax_loss_function
        )  # fmt: skip
    )
    if average_across_batch:
        return cost / tf.cast(tf.shape(targets[0])[0], cost.dtype)
    return cost
