"""A TF1 classifier on tf.contrib.legacy_seq2seq's translate-tutorial model,
written as its users wrote it: ``embedding_attention_seq2seq`` reads the
image as a "sentence" of pixel symbols and "translates" it into one symbol,
the class. For ``--model=tests.user_models.seq2seq_rows:build``.

Unmodified TF1 code apart from the first two lines: ``tensorflow.contrib``
is gone in TensorFlow 2 until ``tf1_train.compat.install()`` has run.
"""

import tf1_train.compat

tf1_train.compat.install()

import tensorflow.compat.v1 as tf  # noqa: E402 (after install(), as a user writes it)
from tensorflow.contrib import legacy_seq2seq, rnn  # noqa: E402

LEVELS, GO = 16, 0  # pixel symbols; the decoder's first (GO) input


def build(images, is_training, num_classes):
    """The pixels, averaged over 2x2 blocks, quantized into 16 symbols, one
    encoder step per block (row by row); the decoder's single step, from
    the GO symbol, emits the class."""
    del is_training
    blocks = tf.nn.avg_pool(images, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    gray = tf.reduce_mean(blocks, axis=3)
    low, high = tf.reduce_min(gray), tf.reduce_max(gray)
    ids = tf.cast(tf.floor((LEVELS - 0.001) * (gray - low) / (high - low + 1e-6)), tf.int32)
    steps = int(gray.shape[1]) * int(gray.shape[2])
    encoder_inputs = tf.unstack(tf.reshape(ids, [-1, steps]), axis=1)
    decoder_inputs = [tf.fill(tf.shape(encoder_inputs[0]), GO)]
    outputs, _ = legacy_seq2seq.embedding_attention_seq2seq(
        encoder_inputs,
        decoder_inputs,
        rnn.GRUCell(16),
        num_encoder_symbols=LEVELS,
        num_decoder_symbols=num_classes,
        embedding_size=8,
    )
    return outputs[0]
