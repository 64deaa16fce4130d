"""A TF 1.x program exactly as it was written for TensorFlow 1.x: ``import
tensorflow as tf`` (the v1 API then), ``tf.app.flags`` and ``tf.app.run``,
placeholders, ``tf.layers``, ``tf.contrib.data``, a ``Session`` loop, and a
module of its own (tf1x_model.py) imported the same way. On TensorFlow 2.21
it stops at its first v1 name; it runs through ``python -m tf1_train.compat
--v1``. Prints ``first_loss`` and ``last_loss``.
"""

import numpy as np
import tensorflow as tf
import tf1x_model
from tensorflow import placeholder

flags = tf.app.flags
flags.DEFINE_integer("steps", 150, "training steps")
FLAGS = flags.FLAGS


def main(_):
    tf.set_random_seed(0)
    rng = np.random.RandomState(0)
    features = rng.randn(256, 4).astype(np.float32)
    targets = features @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((features, targets)).repeat()
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(32))
    x_batch, y_batch = tf.data.make_one_shot_iterator(dataset).get_next()
    x = placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 1])
    loss = tf.losses.mean_squared_error(y, tf1x_model.regressor(x, 16))
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(FLAGS.steps):
            xs, ys = sess.run([x_batch, y_batch])
            losses.append(sess.run([train_op, loss], {x: xs, y: ys})[1])
    tf.logging.info("done")
    print(f"first_loss = {losses[0]:.4f}")
    print(f"last_loss = {np.mean(losses[-10:]):.4f}")


if __name__ == "__main__":
    tf.app.run()
