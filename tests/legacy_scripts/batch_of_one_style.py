"""A TF 1.x on-policy agent's buffer, as spinningup's vpg, ppo and trpo keep
it: each step runs the value head on one observation and stores what
``sess.run`` returns, an array of shape (1,), into an element of the buffer.
NumPy 1.x stored its number; NumPy 2 raises. ``--idiom`` picks the line:
``as_written`` (``buf[t] = v``), ``float`` (``float(v)``), ``item`` (the
edit: ``v.item()``) or ``wider`` (a 2-element array, which NumPy 1.x
refused too). Prints the buffer's sum.
"""

import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("idiom", "as_written", "as_written, float, item or wider")
FLAGS = flags.FLAGS


def main(_):
    tf.set_random_seed(0)
    obs = tf.placeholder(tf.float32, [None, 3])
    value = tf.squeeze(tf.layers.dense(obs, 1, name="v"), axis=1)
    pair = tf.concat([value, value], 0)
    buf = np.zeros(4, dtype=np.float32)
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t in range(4):
            v, w = sess.run([value, pair], {obs: rng.randn(1, 3)})
            if FLAGS.idiom == "as_written":
                buf[t] = v
            elif FLAGS.idiom == "float":
                buf[t] = float(v)
            elif FLAGS.idiom == "wider":
                buf[t] = w
            else:
                buf[t] = v.item()
    print(f"buffer_sum = {buf.sum():.6f}")


if __name__ == "__main__":
    tf.app.run()
