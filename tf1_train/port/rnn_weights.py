"""TF1 RNN-cell weights as Keras 3 ``LSTM`` / ``GRU`` / ``SimpleRNN`` /
``ConvLSTM1D/2D/3D`` weights.

Porting ``tf.nn.rnn_cell`` code to TF2 Keras layers changes three things
that no error reports; a port that copies the arrays as they are trains and
predicts, only differently:

- **one kernel against two**: a TF1 cell multiplies ``concat([x, h])`` by one
  ``[input + units, k * units]`` kernel; Keras keeps ``kernel`` (the input
  rows) and ``recurrent_kernel`` (the state rows) apart;
- **gate order**: TF1's LSTM kernel columns are (input, candidate ``j``,
  forget, output), Keras' are (input, forget, candidate, output); TF1's GRU
  ``gates`` columns are (reset, update), Keras' are (update, reset,
  candidate), with the candidate in its own ``candidate/kernel`` in TF1;
- **constants in the cell**: TF1's LSTM cells add ``forget_bias`` (1.0 by
  default) to the forget gate at every step; Keras has no such term
  (``unit_forget_bias`` only sets the initial bias), so it goes into the
  bias here. And TF1's GRU applies the reset gate before the recurrent
  matmul: the Keras GRU matches it only with ``reset_after=False`` (its
  default, True, is another cell).

Each function returns the list ``layer.set_weights`` takes. Outputs then
agree to float32 rounding (the forget bias is added once instead of per
step): tests/test_compat_rnn.py. Cells Keras has no layer for
(``LSTMCell`` with peepholes or a projection) are refused with the reason.
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

import numpy as np

_LAYERS = {
    "lstm": "LSTM",
    "gru": "GRU",
    "gru_block": "GRU",
    "simple_rnn": "SimpleRNN",
    "conv_lstm": "ConvLSTM{}D",
}  # Keras 3; conv_lstm: 1, 2 or 3 (the kernel's rank - 2)
# Column blocks of a TF1 LSTM kernel, taken in Keras' order (i, f, c, o).
_LSTM_TO_KERAS = (0, 2, 1, 3)


def _split_rows(kernel: np.ndarray, units: int, what: str) -> Tuple[np.ndarray, np.ndarray]:
    """(input rows, state rows) of a TF1 ``concat([x, h])`` kernel."""
    kernel = np.asarray(kernel)
    if kernel.ndim != 2 or kernel.shape[0] <= units:
        raise ValueError(
            f"{what}: shape {list(kernel.shape)} is not [input + {units}, ...] "
            "(a TF1 cell kernel multiplies concat([inputs, state]))"
        )
    return kernel[:-units], kernel[-units:]


def _blocks(array: np.ndarray, n: int, order) -> np.ndarray:
    parts = np.split(np.asarray(array), n, axis=-1)
    return np.concatenate([parts[i] for i in order], axis=-1)


def keras_lstm(kernel, bias, forget_bias: float = 1.0) -> List[np.ndarray]:
    """``BasicLSTMCell`` / ``LSTMCell`` (no peepholes, no projection) weights
    as ``tf.keras.layers.LSTM(units)``'s [kernel, recurrent_kernel, bias];
    ``forget_bias``: the cell's (1.0 unless the TF1 code set it)."""
    bias = np.asarray(bias)
    if bias.ndim != 1 or bias.size % 4:
        raise ValueError(f"LSTM bias: shape {list(bias.shape)} is not [4 * units]")
    units = bias.size // 4
    x_rows, h_rows = _split_rows(kernel, units, "LSTM kernel")
    if x_rows.shape[1] != 4 * units:
        raise ValueError(f"LSTM kernel: {x_rows.shape[1]} columns, the bias has {4 * units}")
    return _lstm_to_keras(x_rows, h_rows, bias, forget_bias)


def _lstm_to_keras(x_rows, h_rows, bias, forget_bias: float) -> List[np.ndarray]:
    """An LSTM's input rows, state rows and bias in Keras' gate order, the
    forget bias in the bias (dense or convolutional: the gates are the last axis)."""
    units = bias.size // 4
    keras_bias = _blocks(bias, 4, _LSTM_TO_KERAS).copy()
    keras_bias[units : 2 * units] += np.asarray(forget_bias, keras_bias.dtype)
    return [_blocks(x_rows, 4, _LSTM_TO_KERAS), _blocks(h_rows, 4, _LSTM_TO_KERAS), keras_bias]


def keras_gru(gates_kernel, gates_bias, candidate_kernel, candidate_bias) -> List[np.ndarray]:
    """``GRUCell`` weights as ``tf.keras.layers.GRU(units, reset_after=False)``'s
    [kernel, recurrent_kernel, bias]."""
    candidate_bias = np.asarray(candidate_bias)
    units = candidate_bias.size
    if np.asarray(gates_bias).shape != (2 * units,):
        raise ValueError(
            f"GRU gates/bias: shape {list(np.shape(gates_bias))}, expected [{2 * units}] "
            f"for a candidate/bias of [{units}]"
        )
    gx, gh = _split_rows(gates_kernel, units, "GRU gates/kernel")
    cx, ch = _split_rows(candidate_kernel, units, "GRU candidate/kernel")
    reset_update = (1, 0)  # TF1 (r, u) -> Keras (z = u, r)
    return [
        np.concatenate([_blocks(gx, 2, reset_update), cx], axis=-1),
        np.concatenate([_blocks(gh, 2, reset_update), ch], axis=-1),
        np.concatenate([_blocks(gates_bias, 2, reset_update), candidate_bias]),
    ]


def keras_simple_rnn(kernel, bias) -> List[np.ndarray]:
    """``BasicRNNCell`` weights as ``tf.keras.layers.SimpleRNN(units)``'s."""
    bias = np.asarray(bias)
    x_rows, h_rows = _split_rows(kernel, bias.size, "BasicRNNCell kernel")
    return [x_rows, h_rows, bias]


def keras_conv_lstm(kernel, biases=None, forget_bias: float = 1.0) -> List[np.ndarray]:
    """tf.contrib.rnn's ``ConvLSTMCell`` (``Conv1D/2D/3DLSTMCell``) weights as
    Keras 3 ``ConvLSTM1D/2D/3D(output_channels, kernel_shape,
    padding="same")``'s [kernel, recurrent_kernel, bias]: the kernel's
    input-channel rows apart from its state rows, the gates (i, j, f, o) in
    Keras' order, ``forget_bias`` in the bias (``biases=None``: the cell's
    ``use_bias=False``, zeros)."""
    kernel = np.asarray(kernel)
    if kernel.ndim not in (3, 4, 5) or kernel.shape[-1] % 4:
        raise ValueError(
            f"ConvLSTMCell kernel: shape {list(kernel.shape)} is not "
            "kernel_shape + [in + out channels, 4 * out channels]"
        )
    units = kernel.shape[-1] // 4
    if kernel.shape[-2] <= units:
        raise ValueError(f"ConvLSTMCell kernel: {kernel.shape[-2]} rows for {units} channels")
    biases = np.zeros(4 * units, kernel.dtype) if biases is None else np.asarray(biases)
    return _lstm_to_keras(kernel[..., :-units, :], kernel[..., -units:, :], biases, forget_bias)


def tf1_conv_lstm(kernel, recurrent_kernel, bias, forget_bias: float = 1.0) -> List[np.ndarray]:
    """The inverse of keras_conv_lstm: [kernel, biases]."""
    kernel, bias = tf1_lstm(kernel, recurrent_kernel, bias, forget_bias)
    return [kernel, bias]


def tf1_lstm(kernel, recurrent_kernel, bias, forget_bias: float = 1.0) -> List[np.ndarray]:
    """The inverse of keras_lstm: Keras LSTM weights as the TF1 cell's
    [kernel, bias] (``forget_bias=0`` for gradients, which the constant
    does not change)."""
    back = np.argsort(_LSTM_TO_KERAS)
    units = np.asarray(bias).size // 4
    tf1_bias = np.asarray(bias).copy()
    tf1_bias[units : 2 * units] -= np.asarray(forget_bias, tf1_bias.dtype)
    rows = np.concatenate([np.asarray(kernel), np.asarray(recurrent_kernel)], axis=-2)
    return [_blocks(rows, 4, back), _blocks(tf1_bias, 4, back)]


def tf1_gru(kernel, recurrent_kernel, bias) -> List[np.ndarray]:
    """The inverse of keras_gru: [gates/kernel, gates/bias, candidate/kernel,
    candidate/bias]."""
    rows = np.concatenate([np.asarray(kernel), np.asarray(recurrent_kernel)], axis=0)
    units = rows.shape[1] // 3
    update_reset = (1, 0)  # Keras (z, r) -> TF1 (r, u)
    bias = np.asarray(bias)
    return [
        _blocks(rows[:, : 2 * units], 2, update_reset),
        _blocks(bias[: 2 * units], 2, update_reset),
        rows[:, 2 * units :],
        bias[2 * units :],
    ]


def tf1_simple_rnn(kernel, recurrent_kernel, bias) -> List[np.ndarray]:
    """The inverse of keras_simple_rnn: [kernel, bias]."""
    return [np.concatenate([np.asarray(kernel), np.asarray(recurrent_kernel)], axis=0), bias]


def from_checkpoint(
    path: str, scope: str, cell: Optional[str] = None, forget_bias: float = 1.0
) -> Tuple[str, List[np.ndarray]]:
    """(Keras layer name, weights) of the cell saved under ``scope`` (for
    example ``rnn/multi_rnn_cell/cell_0/lstm_cell``) in TF1 checkpoint
    ``path``. ``cell``: "lstm", "gru", "gru_block" (tf.contrib.rnn's
    GRUBlockCell), "simple_rnn" or "conv_lstm" (its ConvLSTMCell: Keras'
    ConvLSTM1D/2D/3D); by default a GRU is known by its variables and the
    others by the scope's default name (``lstm_cell``, ``basic_lstm_cell``,
    ``lstm_fused_cell``, ``basic_rnn_cell``, ``conv_2d_lstm_cell`` ...): their shapes
    alone can be either ([12, 8] is an LSTM of 2 units on 10 inputs or a
    BasicRNNCell of 8 units on 4)."""
    import tensorflow as tf

    reader = tf.train.load_checkpoint(path)
    names = set(reader.get_variable_to_shape_map())
    scope = scope.rstrip("/")

    from tf1_train.port import cells  # the layouts by kind (it builds on this module)

    kind = cell or _cell_kind(scope, names)
    if kind == "conv_lstm":
        _require(scope, names, ("kernel",), path)
        kernel = reader.get_tensor(f"{scope}/kernel")
        biases = reader.get_tensor(f"{scope}/biases") if f"{scope}/biases" in names else None
        layer = _LAYERS[kind].format(kernel.ndim - 2)
        return layer, keras_conv_lstm(kernel, biases, forget_bias)
    if kind not in cells.KINDS:
        raise ValueError(
            f"cell={kind!r}; valid: 'lstm', 'gru', 'gru_block', 'simple_rnn', 'conv_lstm'"
        )
    _require(scope, names, cells.TF1_PARTS[kind], path)
    extras = [n for n in ("w_f_diag", "projection/kernel") if f"{scope}/{n}" in names]
    if kind == "lstm" and extras:
        raise ValueError(
            f"{scope}: an LSTMCell with {' and '.join(extras)} (use_peepholes / num_proj); "
            "Keras 3 has no LSTM layer with these: tf1_train.tf2.rnn.LSTMCell has them, "
            "on the TF1 arrays as they are"
        )
    pair = cells.Cell("", scope, kind, forget_bias)
    values = pair.to_tf2({n: reader.get_tensor(n) for n in pair.tf1_names()})
    return _LAYERS[kind], list(values.values())


def _cell_kind(scope: str, names: set) -> str:
    if f"{scope}/gates/kernel" in names:
        return "gru"
    if f"{scope}/w_ru" in names:
        return "gru_block"
    base = re.sub(r"_\d+$", "", scope.rsplit("/", 1)[-1])  # lstm_cell_1: the second one
    if base in ("lstm_cell", "basic_lstm_cell", "lstm_fused_cell"):
        return "lstm"
    if base == "basic_rnn_cell":
        return "simple_rnn"
    if re.fullmatch(r"conv_(\dd_)?lstm_cell", base):  # ConvLSTMCell, Conv1D/2D/3DLSTMCell
        return "conv_lstm"
    raise ValueError(
        f"{scope}: not a default cell scope name; say which cell it is: "
        "cell='lstm', 'gru', 'gru_block', 'simple_rnn' or 'conv_lstm'"
    )


def _require(scope: str, names: set, parts, path: str) -> None:
    missing = [p for p in parts if f"{scope}/{p}" not in names]
    if missing:
        under = sorted(n for n in names if n.startswith(scope + "/"))
        raise ValueError(
            f"{scope}: {', '.join(missing)} not in {path}; under {scope}/: {under or 'nothing'}"
        )
