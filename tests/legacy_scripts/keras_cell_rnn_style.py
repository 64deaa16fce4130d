"""A Keras cell given to TF 1.x's dynamic_rnn, as TF 1.x tutorials mixed
them (``tf.nn.dynamic_rnn(tf.keras.layers.SimpleRNNCell(n), x,
dtype=tf.float32)``), which TF 1.15.5 ran (measured: ``outputs = (1, 5, 2)``,
``state = (1, 2)``). Not changed for TensorFlow 2: tests run it through
``python -m tf1_train.compat --v1``, as written (``--cell=keras``: Keras 3's
cell raises TypeError) and with the scan's fix (``--cell=v1``:
tf.compat.v1.nn.rnn_cell.BasicRNNCell).
"""

import sys

import numpy as np
import tensorflow as tf


def main(kind):
    if kind == "keras":
        cell = tf.keras.layers.SimpleRNNCell(units=2)
    else:
        cell = tf.compat.v1.nn.rnn_cell.BasicRNNCell(2)
    x = np.ones([1, 5, 4], np.float32)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, last = sess.run([outputs, state])
    print(f"outputs = {out.shape}")
    print(f"state = {np.asarray(last).shape}")


if __name__ == "__main__":
    main(sys.argv[1].split("=", 1)[1] if len(sys.argv) > 1 else "keras")
