"""The TF2 twin (``--tf2_model``) of tests/user_models/decoder_rows.py's
``build``, written with tf1_train.tf2.rnn, .attention and .decode: the LSTM
encoder over the rows (``encoder/lstm_cell/kernel``), the GRU in an
AttentionWrapper with normalized Bahdanau attention
(``decoder/memory_layer/kernel``, ``decoder/attention_wrapper/gru_cell/...``,
``.../bahdanau_attention/attention_g``), the output projection
(``decoder/output_projection/kernel``), so a checkpoint of either entry
point restores into the other."""

import tensorflow as tf

from tf1_train.tf2 import attention, decode, rnn
from tf1_train.tf2.layers import Params

UNITS, STEPS = 16, 2  # as decoder_rows.py


class DecoderRows(tf.Module):
    def __init__(self, image_shape, num_classes):
        super().__init__()
        self.params = Params()
        self.encoder = rnn.DynamicRNN(self.params, rnn.LSTMCell(UNITS), image_shape[1], "encoder")
        self.attention = attention.BahdanauAttention(self.params, UNITS, UNITS, normalize=True,
                                                     scope="decoder")  # fmt: skip
        self.cell = attention.AttentionWrapper(rnn.GRUCell(UNITS), self.attention,
                                               attention_layer_size=UNITS)  # fmt: skip
        self.decoder = decode.BasicDecoder(self.params, self.cell, STEPS, num_classes)

    def __call__(self, images, training):
        del training
        rows = tf.reduce_mean(images, axis=3)  # [batch, height, width]: one step per row
        batch = tf.shape(rows)[0]
        lengths = tf.fill([batch], int(rows.shape[1]))
        memory, (_, h) = self.encoder(rows, lengths)
        self.attention.setup_memory(memory, lengths)
        initial = self.cell.zero_state(batch, rows.dtype).clone(cell_state=(h,))
        inputs = tf.tile(tf.eye(STEPS, dtype=rows.dtype)[None], [batch, 1, 1])  # step markers
        helper = decode.TrainingHelper(inputs, tf.fill([batch], STEPS))
        outputs, _, _ = decode.dynamic_decode(self.decoder, helper, initial, impute_finished=True)
        return outputs.rnn_output[:, -1]
