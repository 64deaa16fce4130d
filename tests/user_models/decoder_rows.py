"""A TF1 classifier on tf.contrib.seq2seq's decoding API, written as its
users wrote a decoder: an LSTM encoder by ``dynamic_rnn`` over the image's
rows, a GRU decoder cell in an ``AttentionWrapper`` (Bahdanau attention over
the rows), a ``TrainingHelper`` over two fixed decoder inputs, ``BasicDecoder``
with a ``tf.layers.Dense`` output projection, ``dynamic_decode`` with
``impute_finished``; the last step's logits are the class scores. For
``--model=tests.user_models.decoder_rows:build``.

Unmodified TF1 code apart from the first two lines: ``tensorflow.contrib``
is gone in TensorFlow 2 until ``tf1_train.compat.install()`` has run.
"""

import tf1_train.compat

tf1_train.compat.install()

import tensorflow.compat.v1 as tf  # noqa: E402 (after install(), as a user writes it)
from tensorflow.contrib import seq2seq  # noqa: E402

UNITS, STEPS = 16, 2


def build(images, is_training, num_classes):
    del is_training
    rows = tf.reduce_mean(images, axis=3)  # [batch, height, width]: one step per row
    batch = tf.shape(rows)[0]
    lengths = tf.fill([batch], int(rows.shape[1]))
    memory, state = tf.nn.dynamic_rnn(
        tf.nn.rnn_cell.LSTMCell(UNITS), rows, lengths, dtype=tf.float32, scope="encoder"
    )
    with tf.variable_scope("decoder") as scope:
        attention = seq2seq.BahdanauAttention(UNITS, memory, memory_sequence_length=lengths,
                                              normalize=True)  # fmt: skip
        cell = seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(UNITS), attention,
                                        attention_layer_size=UNITS)  # fmt: skip
        initial = cell.zero_state(batch, tf.float32).clone(cell_state=state.h)
        inputs = tf.tile(tf.eye(STEPS)[None], [batch, 1, 1])  # step markers
        helper = seq2seq.TrainingHelper(inputs, tf.fill([batch], STEPS))
        projection = tf.layers.Dense(num_classes, name="output_projection")
        decoder = seq2seq.BasicDecoder(cell, helper, initial, output_layer=projection)
        outputs, _, _ = seq2seq.dynamic_decode(decoder, impute_finished=True, scope=scope)
    return outputs.rnn_output[:, -1]
