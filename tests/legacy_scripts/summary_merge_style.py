"""A TF1 training loop that writes its summaries as YOLOv3's train.py does:
``tf.summary.scalar``/``histogram`` (TF 1.x's names), ``self.write_op =
tf.summary.merge_all()``, then ``sess.run([train_op, self.write_op,
self.loss])``. Not changed for TensorFlow 2: tests run it through ``python
-m tf1_train.compat`` (where ``tf.summary`` is TF 2's: merge_all() returns
None and the run raises TypeError) and with ``--v1`` (TF 1.x's, as on TF
1.15.5, which printed ``merged = string`` and ``loss = 3.0000``).
"""

import tensorflow as tf


class Trainer:
    def __init__(self):
        tf.compat.v1.disable_eager_execution()
        self.x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        self.w = tf.Variable(tf.ones([2, 1]))
        self.loss = tf.reduce_mean(tf.matmul(self.x, self.w))
        tf.summary.histogram("weights", self.w)
        tf.summary.scalar("loss", self.loss)
        self.write_op = tf.compat.v1.summary.merge_all()
        self.train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(self.loss)

    def train(self):
        print("merged = " + (self.write_op.dtype.name if self.write_op is not None else "None"))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            feed = {self.x: [[1.0, 2.0]]}
            _, summary, loss = sess.run([self.train_op, self.write_op, self.loss], feed)
            print(f"loss = {loss:.4f}")


if __name__ == "__main__":
    Trainer().train()
