"""A legacy TF1 recurrent program, written the way the TF1 RNN tutorials wrote
them: ``from tensorflow.contrib import rnn``, ``rnn.BasicLSTMCell`` and
``rnn.static_rnn`` over the unstacked time steps, a ``tf.nn.rnn_cell`` stack
under ``tf.nn.dynamic_rnn`` with sequence lengths, placeholders fed in
``feed_dict``, ``tf.train.AdamOptimizer`` and a Saver. It is not changed for
Keras 3 (on which it stops at its first import): tests run it through
``python -m tf1_train.compat`` and check that it trains.

Prints ``first_loss``, ``last_loss``, ``accuracy`` and the cell variables.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.contrib import rnn

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer("steps", 150, "Training steps.")
tf.app.flags.DEFINE_string("train_dir", "", "Where the checkpoint goes (none if empty).")

TIMESTEPS, INPUTS, HIDDEN, CLASSES = 8, 4, 16, 2


def synthetic_batch(rng, batch_size):
    """Class 1: a sequence whose first feature rises over its length; class 0:
    noise. Lengths between 3 and TIMESTEPS, zero-padded."""
    labels = rng.randint(0, 2, batch_size)
    lengths = rng.randint(3, TIMESTEPS + 1, batch_size)
    x = rng.normal(0.0, 0.3, (batch_size, TIMESTEPS, INPUTS)).astype(np.float32)
    for i in np.where(labels == 1)[0]:
        x[i, :, 0] += np.linspace(0.0, 2.0, TIMESTEPS)
    for i, n in enumerate(lengths):
        x[i, n:] = 0.0
    return x, lengths.astype(np.int32), labels.astype(np.int64)


def static_branch(x):
    steps = tf.unstack(x, TIMESTEPS, 1)
    lstm_cell = rnn.BasicLSTMCell(HIDDEN, forget_bias=1.0)
    outputs, _ = rnn.static_rnn(lstm_cell, steps, dtype=tf.float32)
    return outputs[-1]


def dynamic_branch(x, lengths, keep_prob):
    cells = [tf.nn.rnn_cell.GRUCell(HIDDEN), tf.nn.rnn_cell.LSTMCell(HIDDEN)]
    cells = [tf.nn.rnn_cell.DropoutWrapper(c, output_keep_prob=keep_prob) for c in cells]
    stack = tf.nn.rnn_cell.MultiRNNCell(cells)
    _, state = tf.nn.dynamic_rnn(stack, x, sequence_length=lengths, dtype=tf.float32)
    return state[-1].h


def main(_):
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, TIMESTEPS, INPUTS])
    lengths = tf.placeholder(tf.int32, [None])
    labels = tf.placeholder(tf.int64, [None])
    keep_prob = tf.placeholder_with_default(1.0, [])
    with tf.variable_scope("static"):
        a = static_branch(x)
    with tf.variable_scope("dynamic"):
        b = dynamic_branch(x, lengths, keep_prob)
    w = tf.get_variable("out_w", [2 * HIDDEN, CLASSES])
    logits = tf.matmul(tf.concat([a, b], 1), w)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    saver = tf.train.Saver()
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(FLAGS.steps):
            bx, bl, by = synthetic_batch(rng, 32)
            feed = {x: bx, lengths: bl, labels: by, keep_prob: 0.9}
            losses.append(sess.run([train_op, loss], feed)[1])
        bx, bl, by = synthetic_batch(np.random.RandomState(1), 500)
        acc = sess.run(accuracy, {x: bx, lengths: bl, labels: by})
        if FLAGS.train_dir:
            saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"))
    print("first_loss =", losses[0])
    print("last_loss =", np.mean(losses[-10:]))
    print("accuracy =", acc)
    print("cells =", " ".join(sorted(v.op.name for v in tf.trainable_variables())))


if __name__ == "__main__":
    tf.app.run()
