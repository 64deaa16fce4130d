"""A TF 1.x program that reads its static shapes the way TF 1.x code did:
``Dimension`` objects (``x.get_shape()[i].value``, ``[d.value for d in
shape]``, ``shape[0].value is None``, ``Dimension`` arithmetic into
``tf.reshape``), around ``tf.layers`` convolutions and batch norm, a
``dynamic_rnn`` and an LSTM cell. On TensorFlow 2 shapes hold ints, so it
stops at the first ``.value``; ``python -m tf1_train.compat --v1
--v1_shapes`` runs it as written. ``--idiom=dimension_value`` is the same
program edited the portable way (``tf.dimension_value``), for the same
numbers without ``--v1_shapes``. Prints every step's loss.
"""

import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("steps", 12, "training steps")
flags.DEFINE_string("idiom", "value", "value (TF 1.x's) or dimension_value (portable)")
FLAGS = flags.FLAGS


def width(dimension):
    """A static width, read as the chosen idiom reads it."""
    return dimension.value if FLAGS.idiom == "value" else tf.dimension_value(dimension)


def model(images, training):
    net = tf.layers.conv2d(images, 4, 3, padding="same", activation=tf.nn.relu)
    net = tf.layers.batch_normalization(net, training=training)
    shape = net.get_shape()
    if FLAGS.idiom == "value":
        assert shape[0].value is None and [d.value for d in shape][1:] == [8, 8, 4]
        flat = tf.reshape(net, [-1, shape[1] * shape[2] * shape[3]])  # Dimension arithmetic
    else:
        flat = tf.reshape(net, [-1, np.prod(shape.as_list()[1:])])
    rows = tf.reshape(flat, [-1, width(shape[1]), width(shape[2]) * width(shape[3])])
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(6), rows, dtype=tf.float32)
    last = outputs[:, -1, :]
    weights = tf.get_variable("out_w", [width(last.get_shape()[-1]), 3])
    return tf.matmul(tf.layers.dropout(last, 0.0, training=training), weights)


def main(_):
    tf.set_random_seed(3)
    rng = np.random.RandomState(3)
    images = rng.rand(64, 8, 8, 1).astype(np.float32)
    labels = (images.reshape(64, -1).sum(1) * 7).astype(np.int64) % 3
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int64, [None])
    loss = tf.losses.sparse_softmax_cross_entropy(y, model(x, True))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.steps):
            batch = slice(16 * (step % 4), 16 * (step % 4) + 16)
            _, value = sess.run([train_op, loss], {x: images[batch], y: labels[batch]})
            print(f"loss_{step} = {float(value)!r}")
        moving = [v for v in tf.global_variables() if "moving_mean" in v.name]
        print(f"moving_mean = {sess.run(moving[0]).tolist()!r}")


if __name__ == "__main__":
    tf.app.run()
