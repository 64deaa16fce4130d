"""A legacy TF1 training loop that fetches its step counter in the same run
as the train op that increments it, as dennybritz/cnn-text-classification-tf
and XLNet's ``train_gpu.py`` do (``_, step, loss = sess.run([train_op,
global_step, loss])``), and stops, writes summaries and logs by that step.
On TF 1.x the reference variable was read when the run ended: the step
after the update. Not changed for TensorFlow 2: tests run it through
``python -m tf1_train.compat --v1``, with and without ``--v1_variables``.

Prints ``fetched`` (the steps the loop saw), ``runs`` (train ops run before
the loop stopped at step 5) and ``final_step`` (the counter at the end).
"""

import numpy as np
import tensorflow as tf

MAX_STEPS = 5


def main():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (64, 8)).astype(np.float32)
    y = x.dot(rng.uniform(-1, 1, (8, 1))).astype(np.float32)
    inputs = tf.placeholder(tf.float32, [None, 8])
    labels = tf.placeholder(tf.float32, [None, 1])
    w = tf.get_variable("w", [8, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(inputs, w) - labels))
    global_step = tf.Variable(0, name="global_step", trainable=False)
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    grads_and_vars = optimizer.compute_gradients(loss)
    train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fetched, runs = [], 0
        while True:
            _, step, _ = sess.run([train_op, global_step, loss], {inputs: x, labels: y})
            runs += 1
            fetched.append(int(step))
            if step >= MAX_STEPS:
                break
        print("fetched = " + " ".join(str(s) for s in fetched))
        print("runs = " + str(runs))
        print("final_step = " + str(sess.run(global_step)))


if __name__ == "__main__":
    main()
