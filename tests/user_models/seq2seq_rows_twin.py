"""The TF2 twin (``--tf2_model``) of tests/user_models/seq2seq_rows.py's
``build``, written with tf1_train.tf2.seq2seq: the translate tutorial's
``embedding_attention_seq2seq`` on TF1's names
(``embedding_attention_seq2seq/rnn/embedding_wrapper/embedding``,
``.../attention_decoder/AttnW_0``), so a checkpoint of either entry point
restores into the other."""

import tensorflow as tf

from tf1_train.tf2 import rnn, seq2seq
from tf1_train.tf2.layers import Params

LEVELS, GO = 16, 0  # as seq2seq_rows.py


class Seq2SeqRows(tf.Module):
    def __init__(self, image_shape, num_classes):
        super().__init__()
        self.params = Params()
        self.model = seq2seq.EmbeddingAttentionSeq2Seq(
            self.params, rnn.GRUCell(16), LEVELS, num_classes, embedding_size=8
        )

    def __call__(self, images, training):
        del training
        blocks = tf.nn.avg_pool2d(images, 2, 2, "VALID")
        gray = tf.reduce_mean(blocks, axis=3)
        low, high = tf.reduce_min(gray), tf.reduce_max(gray)
        ids = tf.cast(tf.floor((LEVELS - 0.001) * (gray - low) / (high - low + 1e-6)), tf.int32)
        steps = int(gray.shape[1]) * int(gray.shape[2])
        encoder_inputs = tf.unstack(tf.reshape(ids, [-1, steps]), axis=1)
        decoder_inputs = [tf.fill(tf.shape(encoder_inputs[0]), GO)]
        outputs, _ = self.model(encoder_inputs, decoder_inputs)
        return outputs[0]
