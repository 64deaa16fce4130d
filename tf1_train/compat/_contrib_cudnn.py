"""``tensorflow.contrib.cudnn_rnn``'s CPU half, as TF 1.15 defined it.

Programs trained with cuDNN's fused RNNs on a GPU (DeepSpeech's
``--train_cudnn``, OpenSeq2Seq's ``cudnn_rnn`` encoders) ran their
checkpoints on a CPU through two cells whose variables have the layout
cuDNN's canonical weights are saved in:

- ``CudnnCompatibleLSTMCell``: ``LSTMBlockCell`` with ``forget_bias=0``
  (cuDNN's LSTM adds none) under the scope ``cudnn_compatible_lstm_cell``,
  here tf1_train's ``LSTMBlockCell`` (TensorFlow's fused LSTM kernel);
- ``CudnnCompatibleGRUCell``: ``GRUCell``'s ``gates/kernel`` and
  ``gates/bias`` with cuDNN's candidate, ``tanh(x Wx + bx + r * (h Wh + bh))``
  (the reset gate applied after the hidden projection, which has a bias of
  its own): variables ``candidate/input_projection/{kernel,bias}`` and
  ``candidate/hidden_projection/{kernel,bias}``.

The cuDNN layers and ops themselves (``CudnnLSTM``, ``CudnnGRU``, the
saveables and parameter converters, ``cudnn_lstm`` ...) ran only on an
NVIDIA GPU with contrib's kernels, which TensorFlow 2 has not: each raises
one line when constructed or called, so a module that imports them at the
top still imports. The constants are TF 1.15's strings and counts.
"""

from __future__ import annotations

import functools

import tensorflow as tf
from tensorflow.python.ops import rnn_cell_impl

from tf1_train.compat._contrib_names import CUDNN_CONSTANTS, CUDNN_GPU_ONLY
from tf1_train.compat._contrib_rnn import LSTMBlockCell

v1 = tf.compat.v1


class CudnnCompatibleLSTMCell(LSTMBlockCell):
    """``LSTMBlockCell(num_units, forget_bias=0)`` named ``cudnn_compatible_lstm_cell``."""

    def __init__(self, num_units, reuse=None):
        super().__init__(num_units, forget_bias=0, cell_clip=None, use_peephole=False,
                         reuse=reuse, name="cudnn_compatible_lstm_cell")  # fmt: skip


class CudnnCompatibleGRUCell(rnn_cell_impl.GRUCell):
    """``GRUCell`` with cuDNN's candidate and variables (module docstring)."""

    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super().__init__(num_units, activation=None, reuse=reuse,
                         kernel_initializer=kernel_initializer)  # fmt: skip

    def build(self, inputs_shape):
        depth = tf.compat.dimension_value(inputs_shape[1])
        if depth is None:
            raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
        n, init = self._num_units, self._kernel_initializer

        def bias(value):
            given = self._bias_initializer
            return given if given is not None else v1.constant_initializer(value, self.dtype)

        self._gate_kernel = self.add_weight("gates/kernel", [depth + n, 2 * n], initializer=init)
        self._gate_bias = self.add_weight("gates/bias", [2 * n], initializer=bias(1.0))
        projections = "candidate/input_projection", "candidate/hidden_projection"
        self._candidate_kernels = [
            self.add_weight(f"{p}/kernel", [rows, n], initializer=init)
            for p, rows in zip(projections, (depth, n))
        ]
        self._candidate_biases = [
            self.add_weight(f"{p}/bias", [n], initializer=bias(0.0)) for p in projections
        ]
        self.built = True

    def call(self, inputs, state):
        gates = tf.nn.bias_add(tf.matmul(tf.concat([inputs, state], 1), self._gate_kernel),
                               self._gate_bias)  # fmt: skip
        r, u = tf.split(tf.sigmoid(gates), 2, axis=1)
        (wx, wh), (bx, bh) = self._candidate_kernels, self._candidate_biases
        candidate = tf.nn.bias_add(tf.matmul(inputs, wx), bx)
        candidate += r * tf.nn.bias_add(tf.matmul(state, wh), bh)
        candidate = self._activation(candidate)
        new_h = (1 - u) * candidate + u * state
        return new_h, new_h


@functools.cache  # one object per name: `is` and isinstance hold
def _gpu_only(name: str):
    """A stand-in for the cuDNN-only ``name`` that raises one line when used."""
    message = (
        f"tf.contrib.cudnn_rnn.{name} ran only on cuDNN (NVIDIA GPUs) with contrib's kernels, "
        "which TensorFlow 2 does not have: on a CPU, CudnnCompatibleLSTMCell / "
        "CudnnCompatibleGRUCell (served) under tf.nn.dynamic_rnn read the canonical weights "
        "TF 1.x saved from it; in TF2, tf.keras.layers.LSTM / GRU(reset_after=True) use cuDNN"
    )

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(message)

    if name[0].islower():  # cudnn_lstm, cudnn_rnn_opaque_params_size, ...
        return _function(name, message)
    return type(name, (), {"__init__": __init__, "__doc__": message})


def _function(name: str, message: str):
    def refuse(*args, **kwargs):
        raise NotImplementedError(message)

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = message
    return refuse


def resolve(name: str):
    """The object ``tensorflow.contrib.cudnn_rnn[...cudnn_rnn_ops].<name>`` is."""
    if name in CUDNN_CONSTANTS:
        return CUDNN_CONSTANTS[name]
    if name in CUDNN_GPU_ONLY:
        return _gpu_only(name)
    return globals()[name]
