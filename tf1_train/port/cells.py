"""RNN cells in ``port check``: a TF1 cell's variables against a Keras layer's.

A TF1 cell keeps ``kernel`` + ``bias`` (a GRU: ``gates/*`` + ``candidate/*``;
tf.contrib.rnn's GRUBlockCell, kind ``gru_block``: ``w_ru``, ``b_ru``, ``w_c``, ``b_c``;
its ConvLSTMCell, kind ``conv_lstm``: a convolution ``kernel`` + ``biases``)
where the Keras layer (ConvLSTM1D/2D/3D for ``conv_lstm``) keeps ``kernel`` +
``recurrent_kernel`` + ``bias``, in another gate order and (LSTM) without
the forget bias: no name map can pair
them one to one. A ``"cells"`` entry of ``--name_map`` names both sides::

    {"cells": [{"tf2": "lstm/lstm_cell", "tf1": "rnn/lstm_cell", "kind": "lstm",
                "forget_bias": 1.0}]}

The TF2 side then starts from TF1's weights rearranged (tf1_train.port.rnn_weights)
and reports its gradients and variables rearranged back, under the TF1
names, so every comparison is TF1's own layout. No TensorFlow here.
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple

import numpy as np

from tf1_train.errors import UserError
from tf1_train.port import rnn_weights

KINDS = ("lstm", "gru", "gru_block", "simple_rnn", "conv_lstm")
TF2_PARTS = ("kernel", "recurrent_kernel", "bias")
TF1_PARTS = {
    "lstm": ("kernel", "bias"),
    "simple_rnn": ("kernel", "bias"),
    "gru": ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias"),
    "gru_block": ("w_ru", "b_ru", "w_c", "b_c"),  # the same arrays under other names
    # tf.contrib.rnn's ConvLSTMCell with its default use_bias=True
    "conv_lstm": ("kernel", "biases"),
}


class Cell(NamedTuple):
    tf2: str  # the Keras cell's path without the model's name: lstm/lstm_cell
    tf1: str  # the TF1 cell's variable scope: rnn/multi_rnn_cell/cell_0/lstm_cell
    kind: str
    forget_bias: float = 1.0

    def tf2_names(self) -> List[str]:
        return [f"{self.tf2}/{p}" for p in TF2_PARTS]

    def tf1_names(self) -> List[str]:
        return [f"{self.tf1}/{p}" for p in TF1_PARTS[self.kind]]

    def to_tf2(self, tf1: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """TF2 name -> value, from the TF1 cell's values."""
        args = [tf1[n] for n in self.tf1_names()]
        if self.kind == "lstm":
            values = rnn_weights.keras_lstm(*args, forget_bias=self.forget_bias)
        elif self.kind == "conv_lstm":
            values = rnn_weights.keras_conv_lstm(*args, forget_bias=self.forget_bias)
        elif self.kind in ("gru", "gru_block"):
            values = rnn_weights.keras_gru(*args)
        else:
            values = rnn_weights.keras_simple_rnn(*args)
        return dict(zip(self.tf2_names(), values))

    def to_tf1(self, tf2: Dict[str, np.ndarray], gradients: bool) -> Dict[str, np.ndarray]:
        """TF1 name -> value, from the Keras layer's values (gradients: the
        LSTM's forget bias is a constant, so nothing is taken off)."""
        args = [tf2[n] for n in self.tf2_names()]
        forget_bias = 0.0 if gradients else self.forget_bias
        if self.kind == "lstm":
            values = rnn_weights.tf1_lstm(*args, forget_bias=forget_bias)
        elif self.kind == "conv_lstm":
            values = rnn_weights.tf1_conv_lstm(*args, forget_bias=forget_bias)
        elif self.kind in ("gru", "gru_block"):
            values = rnn_weights.tf1_gru(*args)
        else:
            values = rnn_weights.tf1_simple_rnn(*args)
        return dict(zip(self.tf1_names(), values))


def load(entries, where: str) -> List[Cell]:
    """The ``"cells"`` entries of a name map; one UserError line for a bad one."""
    valid = '{"tf2": keras_cell_path, "tf1": tf1_cell_scope, '
    valid += '"kind": "lstm"|"gru"|"gru_block"|"simple_rnn"|"conv_lstm"'
    valid += ', "forget_bias": number (lstm, conv_lstm; default 1.0)}'
    if not isinstance(entries, list):
        raise UserError(f"{where}: 'cells' must be a list of {valid}")
    cells = []
    for entry in entries:
        ok = isinstance(entry, dict) and {"tf2", "tf1", "kind"} <= set(entry)
        ok = ok and not set(entry) - {"tf2", "tf1", "kind", "forget_bias"}
        ok = ok and all(isinstance(entry[k], str) for k in ("tf2", "tf1"))
        ok = ok and entry["kind"] in KINDS
        ok = ok and isinstance(entry.get("forget_bias", 1.0), (int, float))
        if not ok:
            raise UserError(f"{where}: cell {entry!r}: expected {valid}")
        fb = float(entry.get("forget_bias", 1.0))
        cells.append(Cell(entry["tf2"].strip("/"), entry["tf1"].strip("/"), entry["kind"], fb))
    return cells


def problems(cells: List[Cell], tf1: Dict[str, List[int]], tf2: Dict[str, List[int]]) -> List[str]:
    """What keeps each cell from being paired: missing variables, or shapes
    that are not one cell's two layouts."""
    found = []
    for cell in cells:
        missing = [n for n in cell.tf1_names() if n not in tf1]
        missing += [n for n in cell.tf2_names() if n not in tf2]
        if missing:
            line = f"cell {cell.tf2} <- {cell.tf1}: no variable {', '.join(missing)}"
            no_bias = f"{cell.tf1}/biases" in missing and f"{cell.tf1}/kernel" not in missing
            if cell.kind == "conv_lstm" and no_bias:
                line += " (a ConvLSTMCell with use_bias=False: only the default cell pairs)"
            found.append(line)
            continue
        try:
            made = cell.to_tf2({n: np.zeros(tf1[n], np.float32) for n in cell.tf1_names()})
        except ValueError as e:
            found.append(f"cell {cell.tf2} <- {cell.tf1}: {e}")
            continue
        for name, value in made.items():
            if list(value.shape) != list(tf2[name]):
                found.append(
                    f"cell {cell.tf2} <- {cell.tf1} ({cell.kind}): {name} is {list(tf2[name])}, "
                    f"the TF1 cell gives {list(value.shape)}"
                )
    return found


def to_tf1_arrays(cells: List[Cell], arrays: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """``arrays`` (keys ``prefix:name``) with each cell's TF2 entries replaced
    by the TF1 layout under the TF1 names, per prefix (grad:, step3:, final:)."""
    out = dict(arrays)
    for cell in cells:
        prefixes = {k.split(":", 1)[0] for k in arrays if k.split(":", 1)[-1] in cell.tf2_names()}
        for prefix in prefixes:
            keys = [f"{prefix}:{n}" for n in cell.tf2_names()]
            if not all(k in out for k in keys):
                continue  # a gradient Keras did not compute: left for the comparison to name
            values = {n: out.pop(f"{prefix}:{n}") for n in cell.tf2_names()}
            back = cell.to_tf1(values, gradients=prefix == "grad")
            out.update({f"{prefix}:{n}": v for n, v in back.items()})
    return out
