"""A legacy TF1 language model whose embedding is looked up inside a loop, as
hand-written decoders, scheduled sampling and ``EmbeddingWrapper`` cells did:
``--model=while`` steps a ``tf.while_loop`` whose body looks each step's ids
up; ``--model=wrapper`` runs ``tf.contrib.rnn.EmbeddingWrapper`` around a GRU
under ``dynamic_rnn``; ``--model=sampler`` is SeqGAN's generator in small: a
teacher-forced loop over the sequence looked up before it, trained, and a
loop that samples each next token and looks it up, run but never
differentiated. Gradients clipped by global norm (``--clip``, 0 for
none), logged, and applied by ``--optimizer``; a new batch each step.

Its weights are set from their names after initialization (the same on every
TensorFlow), so TensorFlow 1.15.5 itself can run it to the same numbers:
scripts/make_loop_lookup_goldens.py writes what it printed there to
tests/goldens/loop_lookup_tf115.json. Not changed for TensorFlow 2: tests run
it through ``python -m tf1_train.compat --v1``.

Prints ``loss_<step>``, ``norm_<step>`` every 10 steps and the last, and
``embedding_norm``.
"""

import zlib

import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("model", "while", "while: a tf.while_loop; wrapper: EmbeddingWrapper.")
flags.DEFINE_string("optimizer", "momentum", "momentum, rmsprop, adam or sgd.")
flags.DEFINE_float("clip", 0.0, "Clip gradients to this global norm (0: no clipping).")
flags.DEFINE_integer("steps", 60, "Training steps.")
FLAGS = flags.FLAGS

VOCAB, EMBED, UNITS, BATCH, TIME = 60, 8, 16, 8, 6


def loop_model(ids):
    embedding = tf.get_variable("embedding", [VOCAB, EMBED])
    kernel = tf.get_variable("kernel", [EMBED + UNITS, UNITS])
    softmax_w = tf.get_variable("softmax_w", [UNITS, VOCAB])

    def step(t, state, loss):
        x = tf.nn.embedding_lookup(embedding, ids[:, t])
        state = tf.tanh(tf.matmul(tf.concat([x, state], 1), kernel))
        logits = tf.matmul(state, softmax_w)
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids[:, t + 1], logits=logits)
        return t + 1, state, loss + tf.reduce_mean(xent) / TIME

    start = [tf.constant(0), tf.zeros([BATCH, UNITS]), tf.constant(0.0)]
    return tf.while_loop(lambda t, state, loss: t < TIME, step, start)[2]


def sampler_model(ids):
    embedding = tf.get_variable("embedding", [VOCAB, EMBED])
    kernel = tf.get_variable("kernel", [EMBED + UNITS, UNITS])
    softmax_w = tf.get_variable("softmax_w", [UNITS, VOCAB])
    inputs = tf.TensorArray(tf.float32, TIME).unstack(
        tf.transpose(tf.nn.embedding_lookup(embedding, ids[:, :TIME]), [1, 0, 2])
    )

    def cell(x, state):
        state = tf.tanh(tf.matmul(tf.concat([x, state], 1), kernel))
        return state, tf.matmul(state, softmax_w)

    def teacher_forced(t, state, loss):
        state, logits = cell(inputs.read(t), state)
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids[:, t + 1], logits=logits)
        return t + 1, state, loss + tf.reduce_mean(xent) / TIME

    def generate(t, x, state, tokens):
        state, logits = cell(x, state)
        next_token = tf.cast(tf.reshape(tf.multinomial(logits, 1), [BATCH]), tf.int32)
        x = tf.nn.embedding_lookup(embedding, next_token)
        return t + 1, x, state, tokens.write(t, next_token)

    zeros = tf.zeros([BATCH, UNITS])
    start = tf.nn.embedding_lookup(embedding, ids[:, 0])
    tokens = tf.TensorArray(tf.int32, TIME)
    generated = tf.while_loop(lambda t, *_: t < TIME, generate, [0, start, zeros, tokens])
    tf.add_to_collection("generated", generated[3].stack())
    start = [tf.constant(0), zeros, tf.constant(0.0)]
    return tf.while_loop(lambda t, *_: t < TIME, teacher_forced, start)[2]


def wrapper_model(ids):
    cell = tf.contrib.rnn.EmbeddingWrapper(tf.nn.rnn_cell.GRUCell(UNITS), VOCAB, EMBED)
    outputs, _ = tf.nn.dynamic_rnn(cell, ids[:, :TIME, None], dtype=tf.float32)
    logits = tf.layers.dense(outputs, VOCAB)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids[:, 1:], logits=logits)
    return tf.reduce_mean(xent)


def optimizer(name):
    return {
        "momentum": lambda: tf.train.MomentumOptimizer(0.5, 0.9),
        "rmsprop": lambda: tf.train.RMSPropOptimizer(0.05),
        "adam": lambda: tf.train.AdamOptimizer(0.05),
        "sgd": lambda: tf.train.GradientDescentOptimizer(0.5),
    }[name]()


def main(_):
    ids = tf.placeholder(tf.int32, [BATCH, TIME + 1])
    models = {"while": loop_model, "wrapper": wrapper_model, "sampler": sampler_model}
    loss = models[FLAGS.model](ids)
    params = tf.trainable_variables()
    grads = tf.gradients(loss, params)
    norm = tf.global_norm(grads)
    if FLAGS.clip > 0:
        grads, _ = tf.clip_by_global_norm(grads, FLAGS.clip)
    train_op = optimizer(FLAGS.optimizer).apply_gradients(zip(grads, params))
    embedding = [v for v in params if "embedding" in v.op.name][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in params:
            rng = np.random.RandomState(zlib.crc32(v.op.name.encode()))
            v.load(rng.uniform(-0.5, 0.5, v.shape.as_list()).astype(np.float32), sess)
        for step in range(FLAGS.steps):
            batch = np.random.RandomState(step).randint(0, VOCAB, (BATCH, TIME + 1))
            value, size, _, _ = sess.run(
                [loss, norm, train_op, tf.get_collection("generated")], {ids: batch}
            )
            if step % 10 == 0 or step == FLAGS.steps - 1:
                print(f"loss_{step} = {value:.7f}")
                print(f"norm_{step} = {size:.7f}")
        print(f"embedding_norm = {np.linalg.norm(sess.run(embedding)):.7f}")


if __name__ == "__main__":
    tf.app.run()
