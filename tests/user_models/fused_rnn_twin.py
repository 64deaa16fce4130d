"""The TF2 twin (``--tf2_model``) of tests/user_models/fused_rnn.py's
``build``, written with tf1_train.tf2.rnn: the fused LSTMs under ``fw/`` and
``bw/`` and the GRUBlockCell under ``rnn/gru_cell/w_ru`` ..., TF1's names,
so a checkpoint of either entry point restores into the other."""

import tensorflow as tf

from tf1_train.tf2 import rnn
from tf1_train.tf2.layers import Params, read, zeros

UNITS = 16


class FusedRnn(tf.Module):
    def __init__(self, image_shape, num_classes):
        super().__init__()
        self.params = Params()
        width = image_shape[1]
        self.forward = rnn.LSTMBlockFusedCell(self.params, UNITS, width, name="fw")
        self.backward = rnn.LSTMBlockFusedCell(self.params, UNITS, width, name="bw",
                                               reverse=True)  # fmt: skip
        self.gru = rnn.DynamicRNN(self.params, rnn.GRUBlockCell(UNITS), 2 * UNITS)
        self.w = self.params.create("softmax_w", [UNITS, num_classes], zeros)
        self.b = self.params.create("softmax_b", [num_classes], zeros)

    def __call__(self, images, training):
        del training
        rows = tf.reduce_mean(images, axis=3)
        steps = tf.transpose(rows, [1, 0, 2])  # time-major, as the fused cells take it
        both = tf.concat([self.forward(steps)[0], self.backward(steps)[0]], axis=2)
        outputs, _ = self.gru(tf.transpose(both, [1, 0, 2]))
        last = outputs[:, -1]
        return tf.nn.bias_add(tf.matmul(last, read(self.w, last)), read(self.b, last))


class Research(tf.Module):
    """The twin of fused_rnn.py's ``research``: a ReLU IndRNNCell layer under
    a NASCell layer, ``rnn/multi_rnn_cell/cell_<i>/...``."""

    def __init__(self, image_shape, num_classes):
        super().__init__()
        self.params = Params()
        cell = rnn.MultiRNNCell([rnn.IndRNNCell(UNITS, activation=tf.nn.relu),
                                 rnn.NASCell(UNITS)])  # fmt: skip
        self.rnn = rnn.DynamicRNN(self.params, cell, image_shape[1])
        self.w = self.params.create("softmax_w", [UNITS, num_classes], zeros)
        self.b = self.params.create("softmax_b", [num_classes], zeros)

    def __call__(self, images, training):
        del training
        outputs, _ = self.rnn(tf.reduce_mean(images, axis=3))
        last = outputs[:, -1]
        return tf.nn.bias_add(tf.matmul(last, read(self.w, last)), read(self.b, last))
