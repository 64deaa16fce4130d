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


class MaskedRows(keras.Model):
    """The port of row_rnn.py's ``masked``: the same lengths as a mask.
    ``zero_output_for_mask`` decides what the layers output past a length:
    Keras' default (False) repeats the last unmasked output, TF1 gave zeros."""

    def __init__(self, num_classes, zero_output_for_mask):
        super().__init__()
        self.lstm = keras.layers.LSTM(UNITS, return_sequences=True)
        self.gru = keras.layers.GRU(
            UNITS, return_sequences=True, reset_after=False,
            zero_output_for_mask=zero_output_for_mask,
        )  # fmt: skip
        self.dense = keras.layers.Dense(num_classes)

    def call(self, images):
        rows = keras.ops.mean(images, axis=3)
        bright = keras.ops.mean(rows, axis=2) > keras.ops.mean(rows, axis=(1, 2))[:, None]
        length = keras.ops.maximum(1, keras.ops.sum(keras.ops.cast(bright, "int32"), axis=1))
        mask = keras.ops.arange(rows.shape[1])[None, :] < length[:, None]
        outputs = self.gru(self.lstm(rows, mask=mask), mask=mask)
        return self.dense(keras.ops.mean(outputs, axis=1))


def masked_as_keras_defaults(num_classes, input_shape):
    """What a first port writes: the mask, and Keras' defaults."""
    del input_shape
    return MaskedRows(num_classes, zero_output_for_mask=False)


def masked(num_classes, input_shape):
    """The port that gives TF1's numbers: zeros past each length."""
    del input_shape
    return MaskedRows(num_classes, zero_output_for_mask=True)
