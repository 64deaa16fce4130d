"""A TF1 recurrent classifier as the TF1 tutorials wrote one: each image row
is a time step (MNIST's 28 rows of 28 pixels; the digits' 8 of 8), a
``tf.nn.rnn_cell`` stack run by ``tf.nn.dynamic_rnn``, and logits from the
last step's output. For ``--model=tests.user_models.row_rnn:build``.

Unmodified TF1 code apart from the first two lines: under Keras 3
``tf.nn.rnn_cell.LSTMCell`` raises "not available with Keras 3" until
``tf1_train.compat.install()`` has run.
"""

import tf1_train.compat

tf1_train.compat.install()

import tensorflow.compat.v1 as tf  # noqa: E402 (after install(), as a user writes it)

UNITS = 32


def build(images, is_training, num_classes):
    rows = tf.reduce_mean(images, axis=3)  # [batch, height, width]: height steps of width
    cells = [tf.nn.rnn_cell.LSTMCell(UNITS), tf.nn.rnn_cell.GRUCell(UNITS)]
    if is_training:
        cells[0] = tf.nn.rnn_cell.DropoutWrapper(cells[0], output_keep_prob=0.9, seed=1)
    cell = tf.nn.rnn_cell.MultiRNNCell(cells)
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, dtype=rows.dtype)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(outputs[:, -1], weights, bias)


def plain(images, is_training, num_classes):
    """The same stack without dropout (``port check`` compares it step by
    step with its Keras port, tests/user_models/row_rnn_keras.py)."""
    del is_training
    rows = tf.reduce_mean(images, axis=3)
    cell = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.LSTMCell(UNITS), tf.nn.rnn_cell.GRUCell(UNITS)]
    )
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, dtype=rows.dtype)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(outputs[:, -1], weights, bias)


def lengths(rows):
    """Each image's rows brighter than its mean, as a sequence length (1 to
    height): a length per example that comes from the data."""
    bright = tf.reduce_mean(rows, axis=2) > tf.reduce_mean(rows, axis=[1, 2])[:, None]
    return tf.maximum(1, tf.reduce_sum(tf.cast(bright, tf.int32), axis=1))


def masked(images, is_training, num_classes):
    """The plain stack given a ``sequence_length``, as variable-length TF1
    models were written: dynamic_rnn outputs zeros past each length, and the
    logits come from the outputs averaged over all time steps."""
    del is_training
    rows = tf.reduce_mean(images, axis=3)
    cell = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.LSTMCell(UNITS), tf.nn.rnn_cell.GRUCell(UNITS)]
    )
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, sequence_length=lengths(rows), dtype=rows.dtype)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(tf.reduce_mean(outputs, axis=1), weights, bias)
