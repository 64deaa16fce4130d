"""`port check` and `port convert` on a recurrent model and its Keras 3 port.

The TF1 model is tests/user_models/row_rnn.py's ``plain`` (an LSTMCell and a
GRUCell under dynamic_rnn, after tf1_train.compat.install()); its port,
tests/user_models/row_rnn_keras.py, is Keras' LSTM, GRU(reset_after=False)
and Dense, paired by row_rnn_name_map.json's "cells" entries. Its ``masked``
variant gives dynamic_rnn a sequence_length; row_rnn_keras.py's ports of it
pass a mask, with Keras' defaults or with zero_output_for_mask=True. And
tf.contrib.rnn's Conv1DLSTMCell (tests/user_models/contrib_cells.py's
``conv_rows``) against Keras' ConvLSTM1D (contrib_cells_keras.py), paired by
a ``conv_lstm`` cell.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

from tests.conftest import warm_side
from tf1_train.port import cells, check, hints, name_map
from tf1_train.port.__main__ import main as port_main

MAP = os.path.join(ROOT, "tests", "user_models", "row_rnn_name_map.json")
LSTM = "rnn/multi_rnn_cell/cell_0/lstm_cell"
GRU = "rnn/multi_rnn_cell/cell_1/gru_cell"


RNN = {"model": "tests.user_models.row_rnn:plain", "tf2": "tests.user_models.row_rnn_keras:build",
       "towers": 2, "batch": 8, "lr": 0.1, "optimizer": "sgd", "steps": 1,
       "record": "all"}  # fmt: skip
WRONG_FORGET_BIAS = json.loads(open(MAP).read())
WRONG_FORGET_BIAS["cells"][0]["forget_bias"] = 0.0  # the TF1 cell adds 1.0
CONV = "rnn/conv_1d_lstm_cell"
CONV_MAP = {
    "pairs": {"dense/kernel": "softmax_w", "dense/bias": "softmax_b"},
    "cells": [{"tf2": "conv_lstm1d/conv_lstm_cell", "tf1": CONV, "kind": "conv_lstm"}],
}
NO_CELLS = {"pairs": {"dense/kernel": "softmax_w", "dense/bias": "softmax_b",
                      "lstm/lstm_cell/kernel": f"{LSTM}/kernel"}}  # fmt: skip
CASES = {
    "paired": {**RNN, "name_map": name_map.load(MAP), "optimizer": "momentum", "steps": 8},
    "forget_bias": {**RNN, "name_map": WRONG_FORGET_BIAS},
    "no_cells": {**RNN, "name_map": NO_CELLS},
    # dynamic_rnn given sequence_length, ported with a mask (row_rnn.py's masked)
    "masked_defaults": {**RNN, "model": "tests.user_models.row_rnn:masked",
                        "tf2": "tests.user_models.row_rnn_keras:masked_as_keras_defaults",
                        "name_map": name_map.load(MAP)},
    "masked_zeroed": {**RNN, "model": "tests.user_models.row_rnn:masked",
                      "tf2": "tests.user_models.row_rnn_keras:masked",
                      "name_map": name_map.load(MAP), "optimizer": "momentum", "steps": 8},
    "conv": {**RNN, "model": "tests.user_models.contrib_cells:conv_rows",
             "tf2": "tests.user_models.contrib_cells_keras:conv_rows", "name_map": CONV_MAP,
             "optimizer": "momentum", "steps": 8},
}  # fmt: skip


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    # Two process chains for the cases (check.run_chains, as
    # tests/test_port_check.py runs its own), each case as the CLI runs it.
    out = tmp_path_factory.mktemp("port_rnn")
    check.run_chains(
        [{**c, "id": i} for i, c in CASES.items()], str(out), shards=2, run_side=warm_side
    )
    return str(out)


def _report(out_dir, name):
    return check.report({**CASES[name], "id": name}, out_dir)


PAIRED = {  # case: (the cells, the inventory line, gradients compared in TF1's layout)
    "paired": ([LSTM, GRU], "8 TF1 and 8 TF2",
               [f"{LSTM}/kernel", f"{LSTM}/bias", f"{GRU}/gates/kernel", f"{GRU}/candidate/bias"]),
    "conv": ([CONV], "4 TF1 and 5 TF2", [f"{CONV}/kernel", f"{CONV}/biases"]),
}  # fmt: skip


@pytest.mark.parametrize("name", PAIRED)
def test_the_cells_pair_and_the_port_trains_like_the_tf1_model(out_dir, name):
    # conv: tf.contrib.rnn's Conv1DLSTMCell against Keras' ConvLSTM1D
    scopes, inventory, gradients = PAIRED[name]
    rep = _report(out_dir, name)
    assert rep["ok"], rep["first_divergence"]
    text = check.format_report(rep)
    assert f"RNN cells paired by the name map: {', '.join(scopes)}" in text
    assert f"inventory: {inventory} variables: all matched" in text
    compared = {r["tensor"] for r in rep["rows"] if r["phase"] == "gradient"}
    assert set(gradients) <= compared  # in TF1's layout, under TF1's names
    worst = max(r["excess"] for r in rep["rows"])
    assert worst < 0.5, worst  # measured: paired 0.20 after 10 steps (the CLI), conv 0.09 after 8


def test_a_conv_lstm_cell_without_biases_is_named_as_such():
    pair = cells.Cell("conv_lstm2d/conv_lstm_cell", "rnn/conv_2d_lstm_cell", "conv_lstm")
    tf1 = {"rnn/conv_2d_lstm_cell/kernel": [3, 3, 5, 16]}
    tf2 = {f"conv_lstm2d/conv_lstm_cell/{p}": [3, 3, 1, 16] for p in ("kernel", "recurrent_kernel")}
    [line] = cells.problems([pair], tf1, tf2)
    assert "no variable rnn/conv_2d_lstm_cell/biases" in line
    assert "use_bias=False" in line


def test_a_forget_bias_the_map_gets_wrong_parts_at_the_logits(out_dir):
    rep = _report(out_dir, "forget_bias")
    assert not rep["ok"]
    assert rep["first_divergence"]["phase"] == "forward"
    assert rep["first_divergence"]["tensor"] == "logits"


def test_a_map_without_cells_fails_the_inventory_and_says_why(out_dir):
    rep = _report(out_dir, "no_cells")
    assert rep["first_divergence"]["phase"] == "inventory"
    assert [h["id"] for h in rep["hints"]] == ["rnn_cell_layout"]
    assert 'a "cells" entry in --name_map' in rep["hints"][0]["evidence"]


def test_zeros_past_sequence_length_need_zero_output_for_mask(out_dir):
    # TF1 outputs zeros past each length; Keras' default repeats the last
    # unmasked output there, which the mean over time then takes in.
    rep = _report(out_dir, "masked_defaults")
    assert rep["first_divergence"]["phase"] == "forward"
    assert [h["id"] for h in rep["hints"]] == ["rnn_masked_outputs"]
    assert "dynamic_rnn took a sequence_length (1 call(s))" in rep["hints"][0]["evidence"]
    assert "Keras' gru, lstm return(s) sequences" in rep["hints"][0]["evidence"]
    zeroed = _report(out_dir, "masked_zeroed")
    assert zeroed["ok"], zeroed["first_divergence"]
    assert max(r["excess"] for r in zeroed["rows"]) < 0.5  # measured 0.14 after 8 steps
    tf1 = check.load({"id": "masked_zeroed"}, out_dir)[0]
    plain = check.load({"id": "paired"}, out_dir)[0]
    assert int(tf1["fwd:rnn_sequence_lengths"]) == 1  # what the hint reads of the TF1 graph
    assert int(plain["fwd:rnn_sequence_lengths"]) == 0


def test_adam_magnifying_a_paired_cells_rounding_is_named():
    # What a 2-tower Adam check of this pair showed: gradients equal to 3.7e-9,
    # one weight 1.3x the tolerance after step 1 (another summation order).
    name = f"{GRU}/candidate/kernel"
    grad = np.array([[1e-3, 2e-9]], np.float32)
    ctx = hints.Context(
        case={"optimizer": "adam", "towers": 2},
        info={"inventory": {"cells": [GRU, LSTM], "shape_mismatches": []}},
        tf1={"grad:" + name: grad},
        tf2={"grad:" + name: grad + np.float32(3e-9)},
    )
    ctx = ctx._replace(tf1=_Npz(ctx.tf1), tf2=_Npz(ctx.tf2))
    row = {"phase": "step", "step": 1, "tensor": name}
    found = hints.find(row, ctx)
    assert [h["id"] for h in found] == ["rnn_cell_rounding"]
    assert "gradient agreed to 3.0" in found[0]["evidence"]  # float32: 3.03e-09
    sgd = ctx._replace(case={"optimizer": "sgd", "towers": 2})
    assert hints.find(row, sgd) == []  # plain SGD adds no such magnification


class _Npz(dict):
    """What np.load gives the hints: a mapping with ``files``."""

    @property
    def files(self):
        return list(self)


@pytest.mark.parametrize("kind", ["lstm", "gru", "simple_rnn", "conv_lstm"])
def test_cell_layouts_go_there_and_back(kind):
    rng = np.random.RandomState(0)
    units, depth = 3, 2
    tf1_shapes = {
        "lstm": [[depth + units, 4 * units], [4 * units]],
        "simple_rnn": [[depth + units, units], [units]],
        "gru": [[depth + units, 2 * units], [2 * units], [depth + units, units], [units]],
        "conv_lstm": [[3, 3, depth + units, 4 * units], [4 * units]],
    }[kind]
    cell = cells.Cell("layer/cell", "rnn/cell", kind, forget_bias=0.5)
    tf1 = {n: rng.randn(*s).astype(np.float32) for n, s in zip(cell.tf1_names(), tf1_shapes)}
    back = cell.to_tf1(cell.to_tf2(tf1), gradients=False)
    for name in cell.tf1_names():
        np.testing.assert_allclose(back[name], tf1[name], atol=1e-6)


def test_convert_carries_the_cells_to_keras_and_back(tmp_path, capsys):
    # A TF1 run's checkpoint -> the Keras port's .weights.h5 -> a TF1 checkpoint.
    train = tmp_path / "run"
    run = run_cli(["--model=tests.user_models.row_rnn:plain", "--train_steps=3",
                   f"--train_dir={train}", "--display_every=3"])  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    common = ["--tf2=tests.user_models.row_rnn_keras:build", f"--name_map={MAP}",
              "--input_shape=8,8,1", "--num_classes=10"]  # fmt: skip
    h5 = str(tmp_path / "port.weights.h5")
    # In this process: the Keras port is numbered as in a fresh one (fresh_keras_names).
    assert port_main(["convert", str(train), h5, "--to=keras", *common]) == 0
    there = capsys.readouterr().out
    assert "missing" not in there
    assert "left over 1 (not in the TF2 model): global_step" in there
    assert port_main(["convert", h5, str(tmp_path / "back"), "--to=tf1", *common]) == 0
    before = tf.train.load_checkpoint(str(train))
    after = tf.train.load_checkpoint(str(tmp_path / "back"))
    names = sorted(after.get_variable_to_shape_map())
    assert names == sorted(
        n for n in before.get_variable_to_shape_map() if n.startswith(("rnn/", "softmax"))
    )
    for name in names:  # the forget bias goes on and comes off again: float32 rounding
        np.testing.assert_allclose(after.get_tensor(name), before.get_tensor(name), atol=1e-6)
