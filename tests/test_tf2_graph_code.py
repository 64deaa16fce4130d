"""The twins of TF1's recurrent and seq2seq code are graph code that
AutoGraph leaves alone inside a user's ``tf.function``
(tf1_train/tf2/layers.py ``graph_code``): converting them again only cost
tracing time. A user's own cell keeps AutoGraph."""

import inspect

import pytest
import tensorflow as tf
from tensorflow.python.autograph.impl.api import is_autograph_artifact

from tf1_train.tf2 import attention, beam_search, crf, decode, rnn, seq2seq
from tf1_train.tf2.layers import Params
from tf1_train.tf2.rnn_cells import _Cell


def _cells():
    return sorted(
        (name, obj)
        for name, obj in vars(rnn).items()
        if inspect.isclass(obj) and issubclass(obj, _Cell) and obj is not _Cell
    ) + [("AttentionWrapper", attention.AttentionWrapper)]


ENTRIES = {  # what a user's tf.function calls
    **{
        f"{name}.{method}": getattr(cell, method)
        for name, cell in _cells()
        for method in ("__call__", "zero_state")
    },
    **{
        f"{cls.__name__}.__call__": cls.__call__
        for cls in (
            rnn.DynamicRNN,
            rnn.BidirectionalDynamicRNN,
            rnn.StackBidirectionalRNN,
            rnn.LSTMBlockFusedCell,
            seq2seq.RNNDecoder,
            seq2seq.AttentionDecoder,
            seq2seq.EmbeddingAttentionSeq2Seq,
            attention.LuongAttention,
            attention.BahdanauAttention,
        )
    },
    "setup_memory": attention.BahdanauAttention.setup_memory,
    **{
        f.__name__: f
        for f in (
            decode.dynamic_decode,
            decode.sequence_loss,
            beam_search.tile_batch,
            beam_search.gather_tree,
            crf.crf_log_likelihood,
            crf.crf_decode,
            crf.crf_sequence_score,
            crf.crf_log_norm,
            crf.crf_unary_score,
            crf.crf_binary_score,
            crf.crf_multitag_sequence_score,
            seq2seq.sequence_loss,
            seq2seq.sequence_loss_by_example,
        )
    },
}


def test_there_are_cells_to_check():
    assert len(_cells()) >= 20  # the core, contrib, research, conv and wrapper cells


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_twin_entry_is_left_alone_by_autograph(name):
    assert is_autograph_artifact(ENTRIES[name]), name


class _UsersCell(_Cell):
    """A user's cell: by ``python_if``, Python control flow on a tensor."""

    def __init__(self, num_units, python_if):
        super().__init__(num_units)
        self.python_if = python_if

    def build(self, params, prefix, depth):
        return self.units

    def __call__(self, x, state):
        if not self.python_if:
            out = tf.cond(tf.reduce_sum(x) > 0, lambda: x + state[0], lambda: x - state[0])
        elif tf.reduce_sum(x) > 0:
            out = x + state[0]
        else:
            out = x - state[0]
        return out, (out,)


def test_a_users_callable_in_a_twins_loop_runs_as_written():
    # docs/YOUR_MODEL.md: what the user hands a twin (a cell, an embedding
    # function) is called by graph code, so AutoGraph does not convert it:
    # its control flow is tf.cond's, as in TF1; Python's if on a tensor is
    # TensorFlow's own one-line error.
    x = tf.constant([[[1.0, 1.0], [-5.0, 0.0]]])
    assert not is_autograph_artifact(_UsersCell.__call__)  # ours only are marked
    run = tf.function(rnn.DynamicRNN(Params(), _UsersCell(2, python_if=False), 2))
    assert run(x)[0].numpy().tolist() == [[[1.0, 1.0], [-6.0, -1.0]]]
    run = tf.function(rnn.DynamicRNN(Params(), _UsersCell(2, python_if=True), 2))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        run(x)
