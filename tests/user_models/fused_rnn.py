"""A TF1 recurrent classifier on tf.contrib.rnn's fused cells, written as
DeepSpeech and the TF1 reading-comprehension models wrote theirs: the rows
of each image time-major, a bidirectional layer of ``LSTMBlockFusedCell``
(the backward half through ``TimeReversedFusedRNN``) over every row,
then a ``GRUBlockCell`` under ``dynamic_rnn``, logits from its last step.
For ``--model=tests.user_models.fused_rnn:build``.

Unmodified TF1 code apart from the first two lines: ``tensorflow.contrib``
is gone in TensorFlow 2 until ``tf1_train.compat.install()`` has run.
"""

import tf1_train.compat

tf1_train.compat.install()

import tensorflow.compat.v1 as tf  # noqa: E402 (after install(), as a user writes it)
from tensorflow.contrib import rnn  # noqa: E402

UNITS = 16


def build(images, is_training, num_classes):
    del is_training
    rows = tf.reduce_mean(images, axis=3)  # [batch, height, width]
    steps = tf.transpose(rows, [1, 0, 2])  # time-major, as the fused cells take it
    forward = rnn.LSTMBlockFusedCell(UNITS, name="fw")
    backward = rnn.TimeReversedFusedRNN(rnn.LSTMBlockFusedCell(UNITS, name="bw"))
    out_fw, _ = forward(steps, dtype=steps.dtype)
    out_bw, _ = backward(steps, dtype=steps.dtype)
    both = tf.concat([out_fw, out_bw], axis=2)
    outputs, _ = tf.nn.dynamic_rnn(rnn.GRUBlockCell(UNITS), both, dtype=both.dtype,
                                   time_major=True)  # fmt: skip
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(outputs[-1], weights, bias)


def layer_norm(images, is_training, num_classes):
    """tensorflow/nmt's ``unit_type=layer_norm_lstm``: a
    ``LayerNormBasicLSTMCell`` (recurrent dropout while training) under
    ``dynamic_rnn``, batch-major."""
    rows = tf.reduce_mean(images, axis=3)
    cell = rnn.LayerNormBasicLSTMCell(UNITS, dropout_keep_prob=0.9 if is_training else 1.0)
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, dtype=rows.dtype)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(outputs[:, -1], weights, bias)


def attention(images, is_training, num_classes):
    """Magenta's attention RNN (``events_rnn_graph.make_rnn_cell`` with
    ``attn_length``): the first layer's cell wrapped in
    ``AttentionCellWrapper``, each layer in a ``DropoutWrapper``, stacked by
    ``MultiRNNCell`` under ``dynamic_rnn``, batch-major."""
    rows = tf.reduce_mean(images, axis=3)
    keep = 0.9 if is_training else 1.0
    first = rnn.AttentionCellWrapper(rnn.BasicLSTMCell(UNITS), 4, state_is_tuple=True)
    cells = [
        rnn.DropoutWrapper(c, output_keep_prob=keep) for c in (first, rnn.BasicLSTMCell(UNITS))
    ]
    outputs, _ = tf.nn.dynamic_rnn(rnn.MultiRNNCell(cells), rows, dtype=rows.dtype)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(outputs[:, -1], weights, bias)


def research(images, is_training, num_classes):
    """Two of contrib's research cells stacked, as cell-comparison code did:
    a ReLU ``IndRNNCell`` layer (the IndRNN paper's) under a ``NASCell``
    layer, ``MultiRNNCell`` under ``dynamic_rnn``, batch-major."""
    del is_training
    rows = tf.reduce_mean(images, axis=3)
    cell = rnn.MultiRNNCell([rnn.IndRNNCell(UNITS, activation=tf.nn.relu), rnn.NASCell(UNITS)])
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, dtype=rows.dtype)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(outputs[:, -1], weights, bias)
