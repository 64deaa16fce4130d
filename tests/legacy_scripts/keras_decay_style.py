"""Keras 2's learning-rate decay, as TF1-era Keras code set it: an SGD given
``lr=`` and ``decay=`` (Keras 2 used ``lr / (1 + decay * iterations)``),
trained 3 steps on a fixed batch from fixed weights. Run on TensorFlow
1.15.5 to record its weights; TensorFlow 2.21's Keras 3 refuses ``lr=`` and
ignores ``decay=`` (tests/test_port_scan_keras_optimizer.py).

Prints ``kernel = ...`` (the weights after the 3 steps).
"""

import numpy as np
from tensorflow import keras

WEIGHTS = np.array([[0.5], [-0.25], [1.0]], np.float32)
X = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [-1.0, 0.0, 1.0], [2.0, 1.0, 0.0]], np.float32)
Y = np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)


def model():
    net = keras.models.Sequential([keras.layers.Dense(1, use_bias=False, input_shape=(3,))])
    net.set_weights([WEIGHTS])
    return net


def main():
    net = model()
    net.compile(loss="mse", optimizer=keras.optimizers.SGD(lr=0.1, decay=0.5))
    for _ in range(3):
        net.train_on_batch(X, Y)
    print("kernel = " + " ".join(f"{w:.6f}" for w in net.get_weights()[0].ravel()))


if __name__ == "__main__":
    main()
