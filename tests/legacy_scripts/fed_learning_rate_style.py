"""A legacy TF1 model whose learning rate is a variable fed at each step, as
many 2016-18 models did (``self.learning_rate = tf.Variable(0.0,
trainable=False)``, then ``feed_dict={..., model.learning_rate: lr}``): on
TF 1.x the feed set the rate for that run. Not changed for TensorFlow 2:
tests run it through ``python -m tf1_train.compat --v1``, with and without
``--v1_variables``.

Prints ``first_loss``, ``last_loss`` and ``learning_rate`` (the variable's
stored value at the end).
"""

import numpy as np
import tensorflow as tf


class Model:
    def __init__(self):
        self.x = tf.placeholder(tf.float32, [None, 4])
        self.y = tf.placeholder(tf.float32, [None, 1])
        self.learning_rate = tf.Variable(0.0, name="learning_rate", trainable=False)
        w = tf.get_variable("w", [4, 1], initializer=tf.constant_initializer(0.5))
        self.loss = tf.reduce_mean(tf.square(tf.matmul(self.x, w) - self.y))
        self.train_op = tf.train.AdagradOptimizer(self.learning_rate).minimize(self.loss)


def main():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (32, 4)).astype(np.float32)
    y = x.dot(np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32))
    model = Model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(20):
            feed = {model.x: x, model.y: y, model.learning_rate: 0.5}
            loss, _ = sess.run([model.loss, model.train_op], feed_dict=feed)
            losses.append(loss)
        print(f"first_loss = {losses[0]:.6f}")
        print(f"last_loss = {losses[-1]:.6f}")
        print(f"learning_rate = {sess.run(model.learning_rate):.6f}")


if __name__ == "__main__":
    main()
