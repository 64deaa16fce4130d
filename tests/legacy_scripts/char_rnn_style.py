"""A legacy TF1 character-level language model, written the way the char-rnn
ports of 2016-2018 wrote it: an embedding, the sequence split into a list
of steps, a ``MultiRNNCell`` of ``BasicLSTMCell``s stepped by
``tf.contrib.legacy_seq2seq.rnn_decoder`` under the ``rnnlm`` scope, the
loss from ``legacy_seq2seq.sequence_loss_by_example``, gradients clipped by
global norm, Adam, a Saver. Sampling builds the model again with a
``loop_function`` that feeds each step's argmax character back in. It is
not changed for TensorFlow 2 (it stops at its first import): tests run it
through ``python -m tf1_train.compat``.

Prints ``first_loss``, ``last_loss``, ``sample`` and the variables.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.contrib import legacy_seq2seq, rnn

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer("steps", 120, "Training steps.")
tf.app.flags.DEFINE_string("train_dir", ".", "Where the checkpoint goes.")

TEXT = "0123456789abcdefghij " * 40  # each character's successor is fixed
VOCAB = sorted(set(TEXT))
RNN_SIZE, LAYERS, BATCH, SEQ = 32, 2, 16, 20


class Model:
    def __init__(self, batch_size, seq_length, sampling=False):
        cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(RNN_SIZE) for _ in range(LAYERS)])
        self.input_data = tf.placeholder(tf.int32, [batch_size, seq_length])
        self.targets = tf.placeholder(tf.int32, [batch_size, seq_length])
        self.initial_state = cell.zero_state(batch_size, tf.float32)
        with tf.variable_scope("rnnlm"):
            softmax_w = tf.get_variable("softmax_w", [RNN_SIZE, len(VOCAB)])
            softmax_b = tf.get_variable("softmax_b", [len(VOCAB)])
            embedding = tf.get_variable("embedding", [len(VOCAB), RNN_SIZE])
            inputs = tf.split(tf.nn.embedding_lookup(embedding, self.input_data), seq_length, 1)
            inputs = [tf.squeeze(step, [1]) for step in inputs]

        def loop(prev, _):
            prev = tf.matmul(prev, softmax_w) + softmax_b
            return tf.nn.embedding_lookup(embedding, tf.stop_gradient(tf.argmax(prev, 1)))

        outputs, self.final_state = legacy_seq2seq.rnn_decoder(
            inputs,
            self.initial_state,
            cell,
            loop_function=loop if sampling else None,
            scope="rnnlm",
        )
        output = tf.reshape(tf.concat(outputs, 1), [-1, RNN_SIZE])
        self.logits = tf.matmul(output, softmax_w) + softmax_b
        loss = legacy_seq2seq.sequence_loss_by_example(
            [self.logits], [tf.reshape(self.targets, [-1])], [tf.ones([batch_size * seq_length])]
        )
        self.cost = tf.reduce_sum(loss) / batch_size / seq_length
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self.cost, tvars), 5.0)
        self.train_op = tf.train.AdamOptimizer(0.01).apply_gradients(zip(grads, tvars))


def batches(rng):
    ids = np.array([VOCAB.index(c) for c in TEXT], np.int32)
    while True:
        starts = rng.randint(0, len(ids) - SEQ - 1, BATCH)
        x = np.stack([ids[s : s + SEQ] for s in starts])
        yield x, np.stack([ids[s + 1 : s + SEQ + 1] for s in starts])


def main(_):
    path = os.path.join(FLAGS.train_dir, "model.ckpt")
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        model = Model(BATCH, SEQ)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            data, losses = batches(np.random.RandomState(0)), []
            for _ in range(FLAGS.steps):
                x, y = next(data)
                feed = {model.input_data: x, model.targets: y}
                losses.append(sess.run([model.train_op, model.cost], feed)[1])
            tf.train.Saver().save(sess, path)
            names = sorted(v.op.name for v in tf.trainable_variables())
    with tf.Graph().as_default():  # greedy sampling: only the first input is read
        sampler = Model(1, 30, sampling=True)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            first = np.zeros([1, 30], np.int32)
            first[0, 0] = VOCAB.index("0")
            logits = sess.run(sampler.logits, {sampler.input_data: first})
    sample = "".join(VOCAB[i] for i in logits.argmax(1))
    print(f"first_loss = {losses[0]:.4f}")
    print(f"last_loss = {np.mean(losses[-10:]):.4f}")
    print(f"sample = {sample!r}")
    print("variables = " + " ".join(names))


if __name__ == "__main__":
    tf.app.run()
