"""The tf.keras part of a TF 1.x program that also built Session graphs, as
TF1 notebooks did (handson-ml's reproducibility notebook trains a
Sequential with ``fit`` after its graph cells). TF 1.x's Keras ran in graph
mode. Not changed for TensorFlow 2: tests run it through ``python -m
tf1_train.compat --v1``, which turns eager execution off as TF1 programs need.

Prints ``<method> = <what it gave>`` for each of Keras' training and
prediction methods: ``ok <type>`` or the exception's type.
"""

import numpy as np
from tensorflow import keras


def main():
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype("float32")
    y = rng.randint(0, 10, 64)
    model = keras.models.Sequential([keras.layers.Dense(10, activation="softmax")])
    model.compile(loss="sparse_categorical_crossentropy", optimizer="sgd")
    calls = [
        ("fit", lambda: model.fit(x, y, epochs=1, verbose=0)),
        ("evaluate", lambda: model.evaluate(x, y, verbose=0)),
        ("predict", lambda: model.predict(x)),
        ("train_on_batch", lambda: model.train_on_batch(x, y)),
        ("test_on_batch", lambda: model.test_on_batch(x, y)),
        ("predict_on_batch", lambda: model.predict_on_batch(x)),
    ]
    for name, call in calls:
        try:
            print(name + " = ok " + type(call()).__name__)
        except Exception as e:  # noqa: BLE001 (each method's outcome is the output)
            print(name + " = " + type(e).__name__)


if __name__ == "__main__":
    main()
