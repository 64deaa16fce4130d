"""A legacy TF1 translation model, written the way TensorFlow's NMT
tutorial (tensorflow/nmt, 2017) and the seq2seq code built on it wrote one:
an LSTM encoder by ``dynamic_rnn`` over padded sources with their lengths,
a decoder cell in ``tf.contrib.seq2seq.AttentionWrapper`` (Luong attention
over the encoder's outputs, masked by the source lengths), trained with a
``TrainingHelper`` under ``BasicDecoder`` and ``dynamic_decode``, the loss
``sequence_loss`` over the target mask, Adam on clipped gradients; then, as
the tutorial did, a separate inference graph that restores the checkpoint
by name and decodes greedily (``GreedyEmbeddingHelper``) and by beam search
(``BeamSearchDecoder`` on ``tile_batch``-ed memory). It is not changed for
TensorFlow 2 (it stops at its first import): tests run it through ``python
-m tf1_train.compat``.

The task: write the source digits reversed. Prints ``first_loss``,
``last_loss``, ``greedy_accuracy``, ``beam_accuracy`` (whole sequences
right) and ``beam_scores_sorted``; writes the decodes to ``decoded.npz``
(its TF2 port, nmt_style_tf2.py, decodes the same checkpoint).
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.contrib import seq2seq

PAD, SOS, EOS = 0, 1, 2
VOCAB, HIDDEN, MAX_LEN, BEAM = 13, 32, 6, 3


def batch(rng, count):
    """(sources, decoder inputs, targets, source lengths, target lengths)."""
    lengths = rng.randint(2, MAX_LEN + 1, count).astype(np.int32)
    src = np.full((count, MAX_LEN), PAD, np.int32)
    dec_in = np.full((count, MAX_LEN + 1), PAD, np.int32)
    dec_out = np.full((count, MAX_LEN + 1), PAD, np.int32)
    for i, n in enumerate(lengths):
        digits = rng.randint(3, VOCAB, n)
        src[i, :n] = digits
        dec_in[i, : n + 1] = [SOS] + list(digits[::-1])
        dec_out[i, : n + 1] = list(digits[::-1]) + [EOS]
    return src, dec_in, dec_out, lengths, lengths + 1


def encode(src, src_len):
    embedding = tf.get_variable("embedding", [VOCAB, HIDDEN])
    with tf.variable_scope("encoder"):
        cell = tf.nn.rnn_cell.LSTMCell(HIDDEN)
        outputs, state = tf.nn.dynamic_rnn(
            cell, tf.nn.embedding_lookup(embedding, src), src_len, dtype=tf.float32
        )
    return embedding, outputs, state


def attention_cell(memory, memory_len, batch_size, encoder_state):
    """The decoder's cell and its initial state (the encoder's, cloned in)."""
    mechanism = seq2seq.LuongAttention(HIDDEN, memory, memory_sequence_length=memory_len)
    cell = seq2seq.AttentionWrapper(
        tf.nn.rnn_cell.LSTMCell(HIDDEN), mechanism, attention_layer_size=HIDDEN
    )
    initial = cell.zero_state(batch_size, tf.float32).clone(cell_state=encoder_state)
    return cell, initial


def train_graph(seed):
    src = tf.placeholder(tf.int32, [None, MAX_LEN])
    src_len = tf.placeholder(tf.int32, [None])
    dec_in = tf.placeholder(tf.int32, [None, MAX_LEN + 1])
    dec_out = tf.placeholder(tf.int32, [None, MAX_LEN + 1])
    tgt_len = tf.placeholder(tf.int32, [None])
    tf.set_random_seed(seed)
    embedding, memory, state = encode(src, src_len)
    with tf.variable_scope("decoder") as scope:
        cell, initial = attention_cell(memory, src_len, tf.size(src_len), state)
        helper = seq2seq.TrainingHelper(tf.nn.embedding_lookup(embedding, dec_in), tgt_len)
        projection = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")
        decoder = seq2seq.BasicDecoder(cell, helper, initial, output_layer=projection)
        outputs, _, _ = seq2seq.dynamic_decode(decoder, scope=scope)
    logits = outputs.rnn_output
    steps = tf.shape(logits)[1]
    mask = tf.sequence_mask(tgt_len, steps, dtype=tf.float32)
    loss = seq2seq.sequence_loss(logits, dec_out[:, :steps], mask)
    params = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, params), 5.0)
    train_op = tf.train.AdamOptimizer(0.01).apply_gradients(zip(grads, params))
    return (src, dec_in, dec_out, src_len, tgt_len), loss, train_op


def infer_graph(beam_width):
    """A greedy (beam_width 0) or beam-search decoder on the training graph's
    variable names, one per graph as the tutorial built its inference model."""
    src = tf.placeholder(tf.int32, [None, MAX_LEN])
    src_len = tf.placeholder(tf.int32, [None])
    size = tf.size(src_len)
    embedding, memory, state = encode(src, src_len)
    start = tf.fill([size], SOS)
    projection = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")
    with tf.variable_scope("decoder") as scope:
        if beam_width:
            memory, src_len_tiled, state = (
                seq2seq.tile_batch(t, beam_width) for t in (memory, src_len, state)
            )
            cell, initial = attention_cell(memory, src_len_tiled, size * beam_width, state)
            decoder = seq2seq.BeamSearchDecoder(cell, embedding, start, EOS, initial,
                                                beam_width, output_layer=projection)  # fmt: skip
        else:
            cell, initial = attention_cell(memory, src_len, size, state)
            helper = seq2seq.GreedyEmbeddingHelper(embedding, start, EOS)
            decoder = seq2seq.BasicDecoder(cell, helper, initial, output_layer=projection)
        outputs, _, _ = seq2seq.dynamic_decode(decoder, maximum_iterations=MAX_LEN + 2,
                                               scope=scope)  # fmt: skip
    if beam_width:
        return (src, src_len), [outputs.predicted_ids, outputs.beam_search_decoder_output.scores]
    return (src, src_len), [outputs.sample_id]


def decode(ckpt, beam_width, src, src_len):
    with tf.Graph().as_default():
        (src_ph, len_ph), fetches = infer_graph(beam_width)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, ckpt)  # every variable, by the training names
            return sess.run(fetches, {src_ph: src, len_ph: src_len})


def exact(ids, targets, lengths):
    """Share of sequences decoded whole: the target and then EOS."""
    right = 0
    for row, want, n in zip(ids, targets, lengths):
        got = list(row[: n + 1]) if len(row) > n else []
        right += got == list(want[: n + 1])
    return right / len(lengths)


def main(workdir):
    tf.disable_eager_execution()
    ckpt = os.path.join(workdir, "nmt.ckpt")
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        feeds, loss, train_op = train_graph(seed=0)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = []
            for _ in range(250):
                values = dict(zip(feeds, batch(rng, 64)))
                losses.append(sess.run([train_op, loss], values)[1])
            saver.save(sess, ckpt)
    src, _, dec_out, src_len, _ = batch(np.random.RandomState(1), 200)
    (greedy,) = decode(ckpt, 0, src, src_len)
    beam_ids, scores = decode(ckpt, BEAM, src, src_len)
    np.savez(os.path.join(workdir, "decoded.npz"), src=src, src_len=src_len, greedy=greedy,
             beam_ids=beam_ids, scores=scores)  # fmt: skip
    last = scores[:, -1, :]  # each beam's accumulated score at the last step
    print(f"first_loss = {losses[0]:.4f}")
    print(f"last_loss = {np.mean(losses[-10:]):.4f}")
    print(f"greedy_accuracy = {exact(greedy, dec_out, src_len):.4f}")
    print(f"beam_accuracy = {exact(beam_ids[:, :, 0], dec_out, src_len):.4f}")
    print(f"beam_scores_sorted = {bool(np.all(np.diff(last, axis=1) <= 1e-6))}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
