"""A legacy TF1 sequence tagger, written the way the BiLSTM-CRF
named-entity taggers of 2017-2019 wrote it: word embeddings, a
``bidirectional_dynamic_rnn`` of LSTM cells over padded sentences with their
lengths, a projection to tag scores, ``tf.contrib.crf.crf_log_likelihood``
as the loss (its ``transitions`` variable), Adam, then ``crf_decode`` in the
graph and ``viterbi_decode`` in NumPy at test time. It is not changed for
TensorFlow 2 (it stops at its first import): tests run it through ``python
-m tf1_train.compat``.

The synthetic language: words 0-9 are outside any entity (tag O), words
10-19 start one (B) and each word after a B or an I continues it (I) while
it is 20-29. Whether a 20-29 word is I or O depends on the tags before it:
what the transitions learn.

Prints ``first_loss``, ``last_loss``, ``accuracy`` and ``agree``.
"""

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.contrib import crf

VOCAB, TAGS, MAX_LEN, HIDDEN = 30, 3, 12, 16  # tags: O, B, I


def sentences(rng, count):
    lengths = rng.randint(4, MAX_LEN + 1, count)
    words = np.zeros((count, MAX_LEN), np.int32)
    tags = np.zeros((count, MAX_LEN), np.int32)
    for i, n in enumerate(lengths):
        inside = False
        for t in range(n):
            kind = rng.randint(3)
            words[i, t] = 10 * kind + rng.randint(10)
            if kind == 1:
                tags[i, t], inside = 1, True
            elif kind == 2 and inside:
                tags[i, t] = 2
            else:
                tags[i, t], inside = 0, False
    return words, tags, lengths.astype(np.int32)


def tagger(words, labels, lengths):
    """(loss, best tags, logits, transitions)."""
    embeddings = tf.get_variable("embeddings", [VOCAB, HIDDEN])
    x = tf.nn.embedding_lookup(embeddings, words)
    cell_fw, cell_bw = tf.nn.rnn_cell.LSTMCell(HIDDEN), tf.nn.rnn_cell.LSTMCell(HIDDEN)
    (out_fw, out_bw), _ = tf.nn.bidirectional_dynamic_rnn(
        cell_fw, cell_bw, x, sequence_length=lengths, dtype=tf.float32
    )
    output = tf.concat([out_fw, out_bw], axis=-1)
    w = tf.get_variable("W", [2 * HIDDEN, TAGS])
    b = tf.get_variable("b", [TAGS], initializer=tf.zeros_initializer())
    logits = tf.reshape(tf.matmul(tf.reshape(output, [-1, 2 * HIDDEN]), w) + b, [-1, MAX_LEN, TAGS])
    log_likelihood, trans_params = crf.crf_log_likelihood(logits, labels, lengths)
    viterbi_tags, _ = crf.crf_decode(logits, trans_params, lengths)
    return tf.reduce_mean(-log_likelihood), viterbi_tags, logits, trans_params


def main():
    tf.disable_eager_execution()
    tf.set_random_seed(0)
    words = tf.placeholder(tf.int32, [None, MAX_LEN])
    labels = tf.placeholder(tf.int32, [None, MAX_LEN])
    lengths = tf.placeholder(tf.int32, [None])
    loss, viterbi_tags, logits, trans_params = tagger(words, labels, lengths)
    train_op = tf.train.AdamOptimizer(0.02).minimize(loss)

    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(150):
            bw, bt, bl = sentences(rng, 32)
            losses.append(sess.run([train_op, loss], {words: bw, labels: bt, lengths: bl})[1])
        tw, tt, tl = sentences(np.random.RandomState(1), 200)
        feed = {words: tw, lengths: tl}
        decoded, scores, transitions = sess.run([viterbi_tags, logits, trans_params], feed)
    right = sum(int((decoded[i, :n] == tt[i, :n]).sum()) for i, n in enumerate(tl))
    agree = all(
        list(crf.viterbi_decode(scores[i, :n], transitions)[0]) == list(decoded[i, :n])
        for i, n in enumerate(tl)
    )
    print(f"first_loss = {losses[0]:.4f}")
    print(f"last_loss = {np.mean(losses[-10:]):.4f}")
    print(f"accuracy = {right / tl.sum():.4f}")
    print(f"agree = {agree}")


if __name__ == "__main__":
    main()
