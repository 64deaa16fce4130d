"""TF1 recurrent classifiers on tf.contrib.rnn's projection and embedding
wrappers and convolutional LSTM cell, written as their users wrote them. For
``--model=tests.user_models.contrib_cells:projection`` (or ``:conv_rows``,
``:embedded_pixels``).

Unmodified TF1 code apart from the first two lines: ``tensorflow.contrib``
is gone in TensorFlow 2 until ``tf1_train.compat.install()`` has run.
"""

import tf1_train.compat

tf1_train.compat.install()

import tensorflow.compat.v1 as tf  # noqa: E402 (after install(), as a user writes it)
from tensorflow.contrib import rnn  # noqa: E402

UNITS = 16


def projection(images, is_training, num_classes):
    """Hands-On Machine Learning's (1st edition, chapter 14) RNN and the
    seq2seq decoders of its time: a dense layer on each step's input
    (``InputProjectionWrapper``, ReLU) and one on each step's output
    (``OutputProjectionWrapper``, to the classes), around a GRUCell under
    ``dynamic_rnn``; the logits are the last step's output."""
    del is_training
    rows = tf.reduce_mean(images, axis=3)  # [batch, height, width]
    inner = rnn.InputProjectionWrapper(rnn.GRUCell(UNITS), 12, activation=tf.nn.relu)
    cell = rnn.OutputProjectionWrapper(inner, output_size=num_classes)
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, dtype=rows.dtype)
    return outputs[:, -1]


def conv_rows(images, is_training, num_classes):
    """The convolutional LSTM of video and radar-nowcasting models, on rows:
    each image row a 1-D signal of one channel, a ``Conv1DLSTMCell`` over
    the rows (time), a dense layer on its last output."""
    del is_training
    rows = tf.reduce_mean(images, axis=3, keepdims=True)  # [batch, height, width, 1]
    width = int(rows.shape[2])
    cell = rnn.Conv1DLSTMCell(input_shape=[width, 1], output_channels=4, kernel_shape=[3])
    outputs, _ = tf.nn.dynamic_rnn(cell, rows, dtype=rows.dtype)
    last = tf.reshape(outputs[:, -1], [-1, width * 4])
    weights = tf.get_variable("softmax_w", [width * 4, num_classes], dtype=rows.dtype)
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(last, weights, bias)


LEVELS = 16  # pixel values quantized into this many symbols


def embedded_pixels(images, is_training, num_classes):
    """legacy_seq2seq's encoder on symbols: each pixel quantized into one
    of 16 ids, the image a sequence of them (row by row), an
    ``EmbeddingWrapper`` around a GRUCell under ``dynamic_rnn`` reading one
    id per step, a dense layer on its final state."""
    del is_training
    gray = tf.reduce_mean(images, axis=3)
    low, high = tf.reduce_min(gray), tf.reduce_max(gray)
    ids = tf.cast(tf.floor((LEVELS - 0.001) * (gray - low) / (high - low + 1e-6)), tf.int32)
    steps = int(gray.shape[1]) * int(gray.shape[2])
    ids = tf.reshape(ids, [-1, steps, 1])  # [batch, time, 1]: one id per step
    cell = rnn.EmbeddingWrapper(rnn.GRUCell(UNITS), embedding_classes=LEVELS, embedding_size=8)
    _, state = tf.nn.dynamic_rnn(cell, ids, dtype=tf.float32)
    weights = tf.get_variable("softmax_w", [UNITS, num_classes])
    bias = tf.get_variable("softmax_b", [num_classes], initializer=tf.zeros_initializer())
    return tf.nn.xw_plus_b(state, weights, bias)
