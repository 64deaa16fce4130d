"""A legacy TF1 model that seeds only its graph (``tf.set_random_seed(42)``,
as handson-ml's ``reset_graph()`` and the MNIST tutorials did) and draws
every initial weight and dropout mask from it: tf.layers' dense, conv2d,
conv2d_transpose, batch_normalization, dropout and flatten, ``tf.nn.dropout``
given a keep probability tensor, then one more unseeded draw. TF 1.x seeded
each unseeded op with the number of ops built before it, so every layer's
ops count. Not changed for TensorFlow 2: tests
run it through ``python -m tf1_train.compat --v1 --v1_seeds --v1_variables``.

Prints ``<variable> = <sum>`` for each variable, ``output`` (the model's
output sum on a fixed batch, dropout on) and ``draw`` (the last draw).
"""

import numpy as np
import tensorflow as tf


def main():
    tf.set_random_seed(42)
    images = tf.placeholder(tf.float32, [None, 8, 8, 3])
    net = tf.layers.conv2d(images, 4, 3, activation=tf.nn.relu, name="conv")
    net = tf.layers.batch_normalization(net, training=True, name="bn")
    net = tf.layers.conv2d_transpose(net, 2, 3, name="deconv")
    net = tf.layers.flatten(net)
    net = tf.layers.dense(net, 16, activation=tf.nn.relu, name="fc")
    net = tf.layers.dropout(net, 0.5, training=True)
    net = tf.nn.dropout(net, keep_prob=tf.placeholder_with_default(0.8, []))
    logits = tf.layers.dense(net, 5, name="logits")
    draw = tf.random_normal([3])
    batch = np.linspace(-1, 1, 2 * 8 * 8 * 3).reshape(2, 8, 8, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            print(f"{v.op.name} = {float(np.sum(sess.run(v))):.6f}")
        out, drawn = sess.run([logits, draw], {images: batch})
    print(f"output = {float(np.sum(out)):.5f}")
    print("draw = " + " ".join(f"{x:.6f}" for x in drawn))


if __name__ == "__main__":
    main()
