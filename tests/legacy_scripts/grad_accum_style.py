"""A legacy TF1 trainer that accumulates gradients over several batches
before each update (a large effective batch on a small GPU), as many TF 1.x
repositories did: one non-trainable variable per trainable one, made as
``tf.Variable(tf.zeros_like(tv.initialized_value()), trainable=False)``, an
op that zeroes them, one that adds a batch's gradients, and one update with
their mean. A copy of the starting weights, made from ``initialized_value()``
as TF 1.x's variables guide taught, measures how far they moved.

Its data and starting weights are fixed, so TensorFlow 1.15.5 itself runs it
to the same numbers: scripts/make_grad_accum_goldens.py writes what it
printed there to tests/goldens/grad_accum_tf115.json. Not changed for
TensorFlow 2: tests run it through ``python -m tf1_train.compat --v1``.

Prints ``loss_<update>`` after each update and ``moved``.
"""

import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("accumulate", 4, "Batches whose gradients make one update.")
flags.DEFINE_integer("updates", 6, "Updates.")
flags.DEFINE_integer("hidden", 8, "Hidden units.")
FLAGS = flags.FLAGS


def model(x):
    start = np.linspace(-0.5, 0.5, 6 * FLAGS.hidden, dtype=np.float32).reshape(6, FLAGS.hidden)
    w1 = tf.get_variable("w1", initializer=tf.constant(start))
    b1 = tf.get_variable("b1", [FLAGS.hidden], initializer=tf.zeros_initializer())
    out = np.cos(np.arange(FLAGS.hidden, dtype=np.float32)).reshape(FLAGS.hidden, 1)
    w2 = tf.get_variable("w2", initializer=tf.constant(out))
    hidden = tf.nn.tanh(tf.matmul(x, w1) + b1)
    return tf.matmul(hidden, w2), w1


def main(_):
    rng = np.random.RandomState(0)
    data_x = rng.normal(size=(64, 6)).astype(np.float32)
    data_y = np.sin(data_x.sum(axis=1, keepdims=True)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.float32, [None, 1])
    prediction, w1 = model(x)
    loss = tf.reduce_mean(tf.square(prediction - y))

    optimizer = tf.train.MomentumOptimizer(0.05, 0.5)
    tvs = tf.trainable_variables()
    accum_vars = [tf.Variable(tf.zeros_like(tv.initialized_value()), trainable=False) for tv in tvs]
    zero_ops = [tv.assign(tf.zeros_like(tv)) for tv in accum_vars]
    gvs = optimizer.compute_gradients(loss, tvs)
    accum_ops = [accum_vars[i].assign_add(gv[0]) for i, gv in enumerate(gvs)]
    train_step = optimizer.apply_gradients(
        [(accum_vars[i] / FLAGS.accumulate, gv[1]) for i, gv in enumerate(gvs)]
    )
    w1_start = tf.Variable(w1.initialized_value(), trainable=False, name="w1_start")
    moved = tf.norm(w1 - w1_start)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for update in range(FLAGS.updates):
            sess.run(zero_ops)
            for k in range(FLAGS.accumulate):
                batch = slice(8 * ((update * FLAGS.accumulate + k) % 8), None)
                sess.run(accum_ops, {x: data_x[batch][:8], y: data_y[batch][:8]})
            sess.run(train_step)
            print(f"loss_{update} = {sess.run(loss, {x: data_x, y: data_y}):.7f}")
        print(f"moved = {sess.run(moved):.7f}")


if __name__ == "__main__":
    tf.app.run()
