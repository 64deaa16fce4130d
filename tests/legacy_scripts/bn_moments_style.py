"""A legacy TF1 model whose batch norm overrides ``_moments``, the hook TPU
code used for cross-replica batch norm (tensorflow/tpu's
``TpuBatchNormalization``, SimCLR's ``BatchNormalization``): here the
statistics of the first half of the batch stand in for one replica group's.
Not changed for TensorFlow 2: tests run it through ``python -m
tf1_train.compat --v1``.

Prints ``calls`` (how often the hook ran), ``outputs`` (the normalized batch)
and ``moving_mean`` after one training step, to 6 decimals, and ``variables``
(named after the subclass, as TF 1.x named a layer's scope).
"""

import numpy as np
import tensorflow as tf

CALLS = []


class HalfBatchNormalization(tf.layers.BatchNormalization):
    def __init__(self, fused=False, **kwargs):
        if fused in (True, None):
            raise ValueError("HalfBatchNormalization does not support fused=True.")
        super().__init__(fused=fused, **kwargs)

    def _moments(self, inputs, reduction_axes, keep_dims):
        CALLS.append(1)
        half = inputs[: tf.shape(inputs)[0] // 2]
        return super()._moments(half, reduction_axes, keep_dims=keep_dims)


def main():
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(4, 3, 2) ** 1.5 / 10.0)
    layer = HalfBatchNormalization(axis=-1, momentum=0.5, epsilon=1e-3)
    y = layer(x, training=True)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run([y] + updates)[0]
        mean = sess.run(layer.moving_mean)
    print("calls = " + str(len(CALLS)))
    print("outputs = " + " ".join(f"{v:.6f}" for v in out.ravel()))
    print("moving_mean = " + " ".join(f"{v:.6f}" for v in mean))
    print("variables = " + " ".join(sorted(v.name for v in tf.global_variables())))


if __name__ == "__main__":
    main()
