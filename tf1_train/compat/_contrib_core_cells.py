"""tf.contrib.rnn's embedding and projection wrappers and convolutional LSTM
cells, as TF 1.15 defined them.

``OutputProjectionWrapper`` put a dense layer on a cell's output (the
classic "predict the next value of a time series" RNN, seq2seq decoders
projecting to the vocabulary), ``InputProjectionWrapper`` one on its
input, ``EmbeddingWrapper`` an embedding lookup of its integer inputs
(legacy_seq2seq's ``embedding_rnn_seq2seq`` encoders); ``ConvLSTMCell``
and its 1D/2D/3D forms (arXiv:1506.04214, video and weather-radar models)
are an LSTM whose matrix products are convolutions. All of them were core
ops around ``get_variable``, none contrib's own, so they are those ops
again on their variable names:

- the wrappers: ``kernel`` and ``bias`` (zeros) under the wrapper's scope
  (``output_projection_wrapper``, ``input_projection_wrapper``), the
  wrapped cell's variables under it;
- the embedding wrapper: ``embedding`` (``[classes, size]``, uniform in
  +-sqrt(3) unless an initializer is given) under ``embedding_wrapper``,
  the lookup and the wrapped cell on ``/cpu:0`` whatever the tower, as
  TF1 placed them;
- the convolutional cells: ``kernel`` (``kernel_shape + [in + out
  channels, 4 out channels]``, gates i, j, f, o as LSTMCell's) and
  ``biases`` (zeros) under ``conv_lstm_cell`` (``conv_1d_lstm_cell`` ...),
  a "SAME" convolution of ``[inputs, h]``.

Variables come from ``get_variable`` during the call, as TF1's made them on
the first call, so the steps share them by the cell scope's reuse.
"""

from __future__ import annotations

import tensorflow as tf

from tf1_train.compat import rnn_cell
from tf1_train.compat._contrib_attention import _linear  # TF1's _Linear, with its bias

v1 = tf.compat.v1


class _Wrapper(rnn_cell.RNNCell):
    """The state and (unless a wrapper projects it) the output size are the
    wrapped cell's; zero_state is its, in TF1's name scope."""

    def __init__(self, cell, activation, reuse):
        super().__init__(_reuse=reuse)
        needs = ("output_size", "state_size", "zero_state")
        if not (all(hasattr(cell, a) for a in needs) and callable(cell)):
            raise TypeError("The parameter cell is not RNNCell.")  # TF 1.15's words
        self._cell = cell
        self._activation = activation

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        with tf.name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def _project(self, x, size):
        projected = _linear([x], size)
        return self._activation(projected) if self._activation else projected


class OutputProjectionWrapper(_Wrapper):
    """``tf.contrib.rnn.OutputProjectionWrapper(cell, output_size,
    activation=None)``: the cell, then ``output kernel + bias``."""

    def __init__(self, cell, output_size, activation=None, reuse=None):
        super().__init__(cell, activation, reuse)
        if output_size < 1:
            raise ValueError(f"Parameter output_size must be > 0: {output_size}.")
        self._output_size = output_size

    @property
    def output_size(self):
        return self._output_size

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        output, new_state = self._cell(inputs, state)
        return self._project(output, self._output_size), new_state


class InputProjectionWrapper(_Wrapper):
    """``tf.contrib.rnn.InputProjectionWrapper(cell, num_proj,
    activation=None)``: ``inputs kernel + bias``, then the cell."""

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None):
        super().__init__(cell, activation, reuse)
        self._num_proj = num_proj

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        return self._cell(self._project(inputs, self._num_proj), state)


class EmbeddingWrapper(_Wrapper):
    """``tf.contrib.rnn.EmbeddingWrapper(cell, embedding_classes,
    embedding_size, initializer=None)``: each step's ids ``[batch, 1]`` (or
    ``[batch]``) looked up in ``embedding``, then the cell. TF1 ran this and
    the wrapped cell under ``tf.device("/cpu:0")``, which decides the device
    over a tower's: so does this (on GPU towers, the cell then runs on the
    CPU, as it did in TF1)."""

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None, reuse=None):
        super().__init__(cell, None, reuse)
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(
                "Both embedding_classes and embedding_size must be > 0: "
                f"{embedding_classes}, {embedding_size}."
            )
        self._shape = [embedding_classes, embedding_size]
        self._initializer = initializer

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        with tf.device("/cpu:0"):
            initializer = self._initializer or v1.get_variable_scope().initializer
            if not initializer:  # uniform in +-sqrt(3): variance 1
                initializer = v1.random_uniform_initializer(-(3**0.5), 3**0.5)
            dtype = tf.nest.flatten(state)[0].dtype
            embedding = v1.get_variable("embedding", self._shape, dtype, initializer)
            embedded = tf.nn.embedding_lookup(embedding, tf.reshape(inputs, [-1]))
            return self._cell(embedded, state)


_CONVOLUTIONS = {3: tf.nn.conv1d, 4: tf.nn.conv2d, 5: tf.nn.conv3d}


class ConvLSTMCell(rnn_cell.RNNCell):
    """``tf.contrib.rnn.ConvLSTMCell(conv_ndims, input_shape,
    output_channels, kernel_shape, use_bias=True, skip_connection=False,
    forget_bias=1.0)``: LSTMCell's gates from a "SAME" convolution of
    ``[inputs, h]``; the state is ``LSTMStateTuple(c, h)`` of shape
    ``input_shape[:-1] + [output_channels]``; ``skip_connection`` appends
    the inputs to the output (and to ``h``, as TF1 did)."""

    def __init__(self, conv_ndims, input_shape, output_channels, kernel_shape, use_bias=True,
                 skip_connection=False, forget_bias=1.0, initializers=None,
                 name="conv_lstm_cell"):  # fmt: skip
        super().__init__(name=name)
        if conv_ndims != len(input_shape) - 1:
            raise ValueError(f"Invalid input_shape {input_shape} for conv_ndims={conv_ndims}.")
        self._conv_ndims = conv_ndims
        self._kernel_shape = list(kernel_shape)
        self._output_channels = output_channels
        self._use_bias = use_bias
        self._forget_bias = forget_bias
        self._skip_connection = skip_connection
        spatial = list(input_shape)[:-1]
        total = output_channels + (input_shape[-1] if skip_connection else 0)
        state = tf.TensorShape(spatial + [output_channels])
        self._state_size = rnn_cell.LSTMStateTuple(state, state)
        self._output_size = tf.TensorShape(spatial + [total])

    @property
    def output_size(self):
        return self._output_size

    @property
    def state_size(self):
        return self._state_size

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs, state):
        c, h = state
        x = tf.concat([inputs, h], axis=-1)
        depth = 4 * self._output_channels
        kernel = v1.get_variable("kernel", self._kernel_shape + [x.shape[-1], depth], x.dtype)
        strides = 1 if x.shape.rank == 3 else [1] * x.shape.rank
        gates = _CONVOLUTIONS[x.shape.rank](x, kernel, strides, padding="SAME")
        if self._use_bias:
            zeros = v1.constant_initializer(0.0)
            gates = gates + v1.get_variable("biases", [depth], x.dtype, zeros)
        i, j, f, o = tf.split(gates, 4, axis=self._conv_ndims + 1)
        new_c = tf.sigmoid(f + self._forget_bias) * c + tf.sigmoid(i) * tf.tanh(j)
        output = tf.tanh(new_c) * tf.sigmoid(o)
        if self._skip_connection:
            output = tf.concat([output, inputs], axis=-1)
        return output, rnn_cell.LSTMStateTuple(new_c, output)


class Conv1DLSTMCell(ConvLSTMCell):
    """``tf.contrib.rnn.Conv1DLSTMCell(input_shape=..., ...)``: conv_ndims 1."""

    def __init__(self, name="conv_1d_lstm_cell", **kwargs):
        super().__init__(conv_ndims=1, name=name, **kwargs)


class Conv2DLSTMCell(ConvLSTMCell):
    """``tf.contrib.rnn.Conv2DLSTMCell(input_shape=..., ...)``: conv_ndims 2."""

    def __init__(self, name="conv_2d_lstm_cell", **kwargs):
        super().__init__(conv_ndims=2, name=name, **kwargs)


class Conv3DLSTMCell(ConvLSTMCell):
    """``tf.contrib.rnn.Conv3DLSTMCell(input_shape=..., ...)``: conv_ndims 3."""

    def __init__(self, name="conv_3d_lstm_cell", **kwargs):
        super().__init__(conv_ndims=3, name=name, **kwargs)


KEPT = {
    "EmbeddingWrapper": EmbeddingWrapper,
    "OutputProjectionWrapper": OutputProjectionWrapper,
    "InputProjectionWrapper": InputProjectionWrapper,
    "ConvLSTMCell": ConvLSTMCell,
    "Conv1DLSTMCell": Conv1DLSTMCell,
    "Conv2DLSTMCell": Conv2DLSTMCell,
    "Conv3DLSTMCell": Conv3DLSTMCell,
}
