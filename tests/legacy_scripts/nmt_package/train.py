"""Trains the classifier: an LSTM over each bucketed batch, its mode a
``tf.contrib.learn.ModeKeys`` as the NMT tutorial's models took it
(dropout only in training). Prints ``first_loss``, ``last_loss``,
``accuracy`` (held out, in INFER mode) and ``widest_bucket`` (the largest
length spread inside one training batch)."""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

from . import data

ModeKeys = tf.contrib.learn.ModeKeys
BATCH, BUCKET_WIDTH, UNITS, STEPS = 16, 3, 32, 120


def model(tokens, lengths, mode):
    keep = 0.9 if mode == ModeKeys.TRAIN else 1.0
    embedding = tf.get_variable("embedding", [data.VOCAB, UNITS])
    inputs = tf.nn.dropout(tf.nn.embedding_lookup(embedding, tokens), keep_prob=keep)
    cell = tf.nn.rnn_cell.LSTMCell(UNITS)
    outputs, _ = tf.nn.dynamic_rnn(cell, inputs, lengths, dtype=tf.float32)
    first, last = outputs[:, 0], tf.gather(outputs, lengths - 1, batch_dims=1)
    return tf.layers.dense(tf.concat([first, last, inputs[:, 0]], 1), 2, name="logits")


def main(argv):
    del argv
    tf.set_random_seed(0)
    rng = np.random.RandomState(0)
    tokens, lengths, labels = data.batched(*data.examples(rng, 2000), BATCH, BUCKET_WIDTH, 0)
    with tf.variable_scope("model"):
        logits = model(tokens, lengths, ModeKeys.TRAIN)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    test_tokens, test_lengths, test_labels = data.examples(np.random.RandomState(1), 300)
    with tf.variable_scope("model", reuse=True):
        predicted = tf.argmax(model(test_tokens, test_lengths, ModeKeys.INFER), 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses, widest = [], 0
        for _ in range(STEPS):
            _, value, batch_lengths = sess.run([train_op, loss, lengths])
            losses.append(value)
            widest = max(widest, int(batch_lengths.max() - batch_lengths.min()))
        accuracy = float(np.mean(sess.run(predicted) == test_labels))
    print(f"first_loss = {losses[0]:.4f}")
    print(f"last_loss = {np.mean(losses[-10:]):.4f}")
    print(f"accuracy = {accuracy:.4f}")
    print(f"widest_bucket = {widest}")


if __name__ == "__main__":
    main(sys.argv)
