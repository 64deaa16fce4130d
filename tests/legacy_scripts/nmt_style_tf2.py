"""The TF2 port of nmt_style.py's inference, as its user would write it on
tf1_train.tf2's twins of tf.contrib.seq2seq: no ``compat.v1``, no
session; the TF1 training run's checkpoint restored by its names; greedy
and beam-search decoding in ``tf.function``s. Writes ``decoded_tf2.npz``
(the same arrays as the TF1 program's ``decoded.npz``) next to the
checkpoint.
"""

import os
import sys

import numpy as np
import tensorflow as tf

from tf1_train.tf2 import attention, beam_search, decode, rnn
from tf1_train.tf2.checkpoint import load_into
from tf1_train.tf2.layers import Params, glorot_uniform

SOS, EOS = 1, 2
VOCAB, HIDDEN, MAX_LEN, BEAM = 13, 32, 6, 3


class Translator(tf.Module):
    """The TF1 graph's variables on its names: ``embedding``,
    ``encoder/rnn/lstm_cell/...``, ``decoder/memory_layer/kernel``,
    ``decoder/attention_wrapper/...``, ``decoder/output_projection/kernel``."""

    def __init__(self):
        super().__init__()
        self.params = params = Params()
        self.embedding = params.create("embedding", [VOCAB, HIDDEN], glorot_uniform)
        self.encoder = rnn.DynamicRNN(params, rnn.LSTMCell(HIDDEN), HIDDEN, "encoder/rnn")
        self.mechanism = attention.LuongAttention(params, HIDDEN, HIDDEN, scope="decoder")
        self.cell = attention.AttentionWrapper(rnn.LSTMCell(HIDDEN), self.mechanism,
                                               attention_layer_size=HIDDEN)  # fmt: skip
        self.decoder = decode.BasicDecoder(params, self.cell, HIDDEN, VOCAB,
                                           output_use_bias=False)  # fmt: skip

    def _initial_state(self, src, src_len, beam_width):
        """Encode; the memory, lengths and state tiled for the beams."""
        memory, state = self.encoder(tf.nn.embedding_lookup(self.embedding, src), src_len)
        if beam_width:
            memory, src_len, state = (
                beam_search.tile_batch(t, beam_width) for t in (memory, src_len, state)
            )
        self.mechanism.setup_memory(memory, src_len)
        return self.cell.zero_state(tf.shape(memory)[0], tf.float32).clone(cell_state=state)

    @tf.function
    def greedy(self, src, src_len):
        initial = self._initial_state(src, src_len, 0)
        helper = decode.GreedyEmbeddingHelper(self.embedding, tf.fill([tf.size(src_len)], SOS),
                                              EOS)  # fmt: skip
        outputs, _, _ = decode.dynamic_decode(self.decoder, helper, initial,
                                              maximum_iterations=MAX_LEN + 2)  # fmt: skip
        return outputs.sample_id

    @tf.function
    def beams(self, src, src_len):
        initial = self._initial_state(src, src_len, BEAM)
        decoder = beam_search.BeamSearchDecoder(
            self.decoder, self.embedding, tf.fill([tf.size(src_len)], SOS), EOS, initial, BEAM
        )
        outputs, _, _ = decode.dynamic_decode(decoder, maximum_iterations=MAX_LEN + 2)
        return outputs.predicted_ids, outputs.beam_search_decoder_output.scores


def main(workdir):
    decoded = np.load(os.path.join(workdir, "decoded.npz"))  # the TF1 run's held-out sources
    model = Translator()
    load_into(os.path.join(workdir, "nmt.ckpt"), model.params.by_name)
    src, src_len = tf.constant(decoded["src"]), tf.constant(decoded["src_len"])
    beam_ids, scores = model.beams(src, src_len)
    np.savez(os.path.join(workdir, "decoded_tf2.npz"), greedy=model.greedy(src, src_len),
             beam_ids=beam_ids, scores=scores)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
