"""A legacy TF1 model of ``tf.contrib.layers`` that seeds only its graph
(``tf.set_random_seed(7)``): conv2d with a frozen batch_norm,
conv2d_transpose, flatten and fully_connected, the loss from ``tf.losses``
on ``tf.one_hot`` labels, then a second head after the loss (as a second tower
or a GAN's other network is) and one more unseeded draw. TF 1.x seeded each
unseeded op with the number of ops built before it, so the layers' and the
loss's ops count. Not changed for TensorFlow 2: tests run it through
``python -m tf1_train.compat --v1 --v1_seeds --v1_variables`` (tf-slim
serves tf.contrib.layers).

Prints ``<variable> = <sum>`` for each variable, ``loss`` on a fixed batch
and ``draw`` (the last draw).
"""

import numpy as np
import tensorflow as tf


def main():
    tf.set_random_seed(7)
    images = tf.placeholder(tf.float32, [None, 8, 8, 3])
    labels = tf.placeholder(tf.int32, [None])
    frozen = {"is_training": False}  # a batch norm with its statistics fixed
    net = tf.contrib.layers.conv2d(
        images, 4, 3, normalizer_fn=tf.contrib.layers.batch_norm, normalizer_params=frozen
    )
    net = tf.contrib.layers.conv2d_transpose(net, 2, 3, stride=2)
    net = tf.contrib.layers.flatten(net)
    logits = tf.contrib.layers.fully_connected(net, 5, activation_fn=None)
    loss = tf.losses.softmax_cross_entropy(tf.one_hot(labels, 5, 1.0, 0.0), logits)
    with tf.variable_scope("head2"):
        tf.contrib.layers.fully_connected(net, 5)
    draw = tf.random_normal([3])
    batch = np.linspace(-1, 1, 2 * 8 * 8 * 3).reshape(2, 8, 8, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            print(f"{v.op.name} = {float(np.sum(sess.run(v))):.6f}")
        value, drawn = sess.run([loss, draw], {images: batch, labels: [1, 3]})
    print(f"loss = {float(value):.5f}")
    print("draw = " + " ".join(f"{x:.6f}" for x in drawn))


if __name__ == "__main__":
    main()
