"""A TF 1.x program around a custom op: a feature-propagation regressor on
random point clouds (features made on a coarse subset, interpolated to every
point by tf_interp's op, a linear head). Prints ``loss_NN = value`` lines.
Build the op first: ./tf_interp_compile.sh."""

import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf_interp  # noqa: E402

B, N, M, C, STEPS = 4, 96, 24, 16, 25


def data():
    rng = np.random.RandomState(7)
    fine = rng.uniform(-1, 1, size=(B, N, 3)).astype(np.float32)
    coarse = fine[:, :M].copy()
    target = np.sin(2.0 * fine).sum(axis=2, keepdims=True).astype(np.float32)
    return fine, coarse, target


def start(rng, shape):
    """Initial weights drawn by NumPy: TF 1.15 and 2.21 draw other numbers for one seed."""
    return tf.constant_initializer(rng.normal(0, 0.5, size=shape).astype(np.float32))


def model(xyz1, xyz2):
    rng = np.random.RandomState(11)
    with tf.variable_scope("coarse"):
        w1 = tf.get_variable("w", [3, C], initializer=start(rng, [3, C]))
        b1 = tf.get_variable("b", [C], initializer=tf.zeros_initializer())
        features = tf.nn.relu(tf.tensordot(xyz2, w1, 1) + b1)
    dist, idx = tf_interp.three_nn(xyz1, xyz2)
    dist = tf.maximum(dist, 1e-10)
    norm = tf.reduce_sum(1.0 / dist, axis=2, keepdims=True)
    weight = (1.0 / dist) / norm
    interpolated = tf_interp.three_interpolate(features, idx, weight)
    with tf.variable_scope("head"):
        w2 = tf.get_variable("w", [C, 1], initializer=start(rng, [C, 1]))
        b2 = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        return tf.tensordot(interpolated, w2, 1) + b2


def main():
    fine, coarse, target = data()
    xyz1 = tf.placeholder(tf.float32, [B, N, 3])
    xyz2 = tf.placeholder(tf.float32, [B, M, 3])
    y = tf.placeholder(tf.float32, [B, N, 1])
    loss = tf.reduce_mean(tf.square(model(xyz1, xyz2) - y))
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
    feed = {xyz1: fine, xyz2: coarse, y: target}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(STEPS):
            _, value = sess.run([train_op, loss], feed_dict=feed)
            print(f"loss_{step:02d} = {float(value)!r}")


if __name__ == "__main__":
    main()
