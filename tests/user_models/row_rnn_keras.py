"""The Keras 3 port of tests/user_models/row_rnn.py's ``plain`` model, as a
porter writes it: an LSTM returning its sequence, a GRU (``reset_after=False``:
the TF1 cell's formula) and a Dense layer. Its variables pair with the TF1
ones through row_rnn_name_map.json (``port check --name_map``)."""

import keras

UNITS = 32


def build(num_classes, input_shape):
    return keras.Sequential(
        [
            keras.layers.Input(input_shape),
            keras.layers.Lambda(lambda x: keras.ops.mean(x, axis=3)),  # rows as time steps
            keras.layers.LSTM(UNITS, return_sequences=True),
            keras.layers.GRU(UNITS, reset_after=False),
            keras.layers.Dense(num_classes),
        ]
    )
