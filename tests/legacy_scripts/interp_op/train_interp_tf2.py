"""The TF 2 port of train_interp.py, as a TF 2 user writes it: the same
custom-op library (rebuilt for TensorFlow 2) and its gradient, registered by
the same tf_interp.py, under eager execution and a ``tf.function``;
``tf.Variable``s, a ``tf.GradientTape`` and Keras' Adam (TF 1.x's epsilon,
1e-8). Prints ``loss_NN = value`` lines, as the TF 1 program does."""

import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf_interp  # noqa: E402
from train_interp import STEPS, C, data  # noqa: E402


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(11)  # the TF 1 program's draws, in its order
        self.w1 = tf.Variable(rng.normal(0, 0.5, size=[3, C]).astype(np.float32), name="coarse/w")
        self.b1 = tf.Variable(tf.zeros([C]), name="coarse/b")
        self.w2 = tf.Variable(rng.normal(0, 0.5, size=[C, 1]).astype(np.float32), name="head/w")
        self.b2 = tf.Variable(tf.zeros([1]), name="head/b")

    def __call__(self, xyz1, xyz2):
        features = tf.nn.relu(tf.tensordot(xyz2, self.w1, 1) + self.b1)
        dist, idx = tf_interp.three_nn(xyz1, xyz2)
        dist = tf.maximum(dist, 1e-10)
        weight = (1.0 / dist) / tf.reduce_sum(1.0 / dist, axis=2, keepdims=True)
        interpolated = tf_interp.three_interpolate(features, idx, weight)
        return tf.tensordot(interpolated, self.w2, 1) + self.b2


def main():
    fine, coarse, target = data()
    model = Model()
    optimizer = tf.keras.optimizers.Adam(0.05, epsilon=1e-8)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(fine, coarse) - target))
        variables = [model.w1, model.b1, model.w2, model.b2]
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    for number in range(STEPS):
        print(f"loss_{number:02d} = {float(step())!r}")


if __name__ == "__main__":
    main()
