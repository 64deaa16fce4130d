"""The Keras 3 port of tests/user_models/contrib_cells.py's ``conv_rows``, as
a porter writes it: Keras' own ConvLSTM1D over the image rows in place of
tf.contrib.rnn's Conv1DLSTMCell under dynamic_rnn, then Flatten and Dense.
Its variables pair with the TF1 ones through a ``"cells"`` entry of kind
``conv_lstm`` (``port check --name_map``)."""

import keras

CHANNELS = 4  # contrib_cells.conv_rows' output_channels


def conv_rows(num_classes, input_shape):
    return keras.Sequential(
        [
            keras.layers.Input(input_shape),
            keras.layers.Lambda(lambda x: keras.ops.mean(x, axis=3, keepdims=True)),
            keras.layers.ConvLSTM1D(CHANNELS, 3, padding="same"),  # the last step's output
            keras.layers.Flatten(),
            keras.layers.Dense(num_classes),
        ]
    )
