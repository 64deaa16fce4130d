"""A legacy TF1 recurrent model that seeds only its graph
(``tf.set_random_seed(42)``): a ``dynamic_rnn`` of a ``tf.nn.rnn_cell``
LSTMCell in a DropoutWrapper, the last output split in two with
``tf.split``, a uniform noise draw, a dense layer on one half, a dense
layer on every step's output (a 3-D input: ``tf.tensordot``), an
initializable ``tf.data`` iterator, a gamma draw, then one more unseeded
draw. TF 1.x seeded each unseeded op with the number of ops built before
it, so the RNN's loop, the split and the draws' own ops count.
Not changed for TensorFlow 2: tests run it through
``python -m tf1_train.compat --v1 --v1_seeds --v1_variables``.

Prints ``<variable> = <sum>`` for each variable, ``output`` (the dense
layer's output sum on a fixed batch) and ``draw`` (the last draw).
"""

import numpy as np
import tensorflow as tf


def main():
    tf.set_random_seed(42)
    inputs = tf.placeholder(tf.float32, [None, 5, 3])
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(8), output_keep_prob=0.5)
    # one step at a time: the wrapper's masks are drawn in step order (with
    # several steps in flight the executor picks the order, on TF 1.x too)
    outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32, parallel_iterations=1)
    first, _ = tf.split(outputs[:, -1], 2, 1)
    noise = tf.random_uniform([4])
    logits = tf.layers.dense(first + noise, 3, name="logits")
    batch = np.linspace(-1, 1, 2 * 5 * 3).reshape(2, 5, 3).astype(np.float32)
    tf.layers.dense(outputs, 2, name="per_step")
    tf.data.Dataset.from_tensor_slices(batch).make_initializable_iterator()
    tf.random_gamma([2], 2.0)
    draw = tf.random_normal([3])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            print(f"{v.op.name} = {float(np.sum(sess.run(v))):.6f}")
        out, drawn = sess.run([logits, draw], {inputs: batch})
    print(f"output = {float(np.sum(out)):.5f}")
    print("draw = " + " ".join(f"{x:.6f}" for x in drawn))


if __name__ == "__main__":
    main()
