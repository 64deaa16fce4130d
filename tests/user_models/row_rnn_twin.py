"""The TF2 twin (``--tf2_model``) of tests/user_models/row_rnn.py's ``plain``
and ``masked`` models, written with tf1_train.tf2.rnn: the same LSTMCell and
GRUCell under the TF1 names (``rnn/multi_rnn_cell/cell_0/lstm_cell/kernel``),
so a checkpoint of either entry point restores into the other."""

import tensorflow as tf

from tf1_train.tf2 import rnn
from tf1_train.tf2.layers import Params, read, zeros

UNITS = 32


class RowRnn(tf.Module):
    """``plain``: the last step's output; ``masked=True``: row_rnn.py's
    ``masked``, the lengths as sequence_length and the mean over time."""

    def __init__(self, image_shape, num_classes, masked=False):
        super().__init__()
        self.params = Params()
        cell = rnn.MultiRNNCell([rnn.LSTMCell(UNITS), rnn.GRUCell(UNITS)])
        self.rnn = rnn.DynamicRNN(self.params, cell, depth=image_shape[1])
        self.w = self.params.create("softmax_w", [UNITS, num_classes], zeros)
        self.b = self.params.create("softmax_b", [num_classes], zeros)
        self.masked = masked

    def __call__(self, images, training):
        del training
        rows = tf.reduce_mean(images, axis=3)
        if self.masked:
            bright = tf.reduce_mean(rows, axis=2) > tf.reduce_mean(rows, axis=[1, 2])[:, None]
            lengths = tf.maximum(1, tf.reduce_sum(tf.cast(bright, tf.int32), axis=1))
            outputs, _ = self.rnn(rows, sequence_length=lengths)
            last = tf.reduce_mean(outputs, axis=1)
        else:
            outputs, _ = self.rnn(rows)
            last = outputs[:, -1]
        return tf.nn.bias_add(tf.matmul(last, read(self.w, last)), read(self.b, last))


def masked(image_shape, num_classes):
    return RowRnn(image_shape, num_classes, masked=True)
