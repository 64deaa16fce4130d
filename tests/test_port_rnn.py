"""`port check` and `port convert` on a recurrent model and its Keras 3 port.

The TF1 model is tests/user_models/row_rnn.py's ``plain`` (an LSTMCell and a
GRUCell under dynamic_rnn, after tf1_train.compat.install()); its port,
tests/user_models/row_rnn_keras.py, is Keras' LSTM, GRU(reset_after=False)
and Dense, paired by row_rnn_name_map.json's "cells" entries.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT

from tf1_train.port import cells, hints

MAP = os.path.join(ROOT, "tests", "user_models", "row_rnn_name_map.json")
SIDES = ["--tf1=tests.user_models.row_rnn:plain", "--tf2=tests.user_models.row_rnn_keras:build"]
LSTM = "rnn/multi_rnn_cell/cell_0/lstm_cell"
GRU = "rnn/multi_rnn_cell/cell_1/gru_cell"


def _port(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "tf1_train.port", *args],
        cwd=ROOT,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _check(tmp_path, name_map, *flags):
    report = tmp_path / "report.json"
    out = _port(
        "check", *SIDES, f"--name_map={name_map}", "--num_gpus=2", "--batch_size=8",
        "--learning_rate=0.1", f"--json={report}", *flags,
    )  # fmt: skip
    return out, json.loads(report.read_text()) if report.exists() else None


def test_the_cells_pair_and_the_port_trains_like_the_tf1_model(tmp_path):
    out, rep = _check(tmp_path, MAP, "--optimizer=momentum", "--steps=8")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert f"RNN cells paired by the name map: {LSTM}, {GRU}" in out.stdout
    compared = {r["tensor"] for r in rep["rows"] if r["phase"] == "gradient"}
    assert {f"{LSTM}/kernel", f"{LSTM}/bias", f"{GRU}/gates/kernel", f"{GRU}/candidate/bias"} <= (
        compared
    )  # in TF1's layout, under TF1's names
    worst = max(r["excess"] for r in rep["rows"])
    assert worst < 0.5, worst  # measured 0.20 of the tolerance after 10 steps


def test_a_forget_bias_the_map_gets_wrong_parts_at_the_logits(tmp_path):
    wrong = json.loads(open(MAP).read())
    wrong["cells"][0]["forget_bias"] = 0.0  # the TF1 cell adds 1.0
    path = tmp_path / "map.json"
    path.write_text(json.dumps(wrong))
    out, rep = _check(tmp_path, path, "--optimizer=sgd", "--steps=1")
    assert out.returncode == 1
    assert rep["first_divergence"]["phase"] == "forward"
    assert rep["first_divergence"]["tensor"] == "logits"


def test_a_map_without_cells_fails_the_inventory_and_says_why(tmp_path):
    naive = {"pairs": {"dense/kernel": "softmax_w", "dense/bias": "softmax_b",
                       "lstm/lstm_cell/kernel": f"{LSTM}/kernel"}}  # fmt: skip
    path = tmp_path / "map.json"
    path.write_text(json.dumps(naive))
    out, rep = _check(tmp_path, path, "--optimizer=sgd", "--steps=1")
    assert out.returncode == 1
    assert rep["first_divergence"]["phase"] == "inventory"
    assert [h["id"] for h in rep["hints"]] == ["rnn_cell_layout"]
    assert 'a "cells" entry in --name_map' in out.stdout


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


@pytest.mark.parametrize("kind", ["lstm", "gru", "simple_rnn"])
def test_cell_layouts_go_there_and_back(kind):
    rng = np.random.RandomState(0)
    units, depth = 3, 2
    tf1_shapes = {
        "lstm": [[depth + units, 4 * units], [4 * units]],
        "simple_rnn": [[depth + units, units], [units]],
        "gru": [[depth + units, 2 * units], [2 * units], [depth + units, units], [units]],
    }[kind]
    cell = cells.Cell("layer/cell", "rnn/cell", kind, forget_bias=0.5)
    tf1 = {n: rng.randn(*s).astype(np.float32) for n, s in zip(cell.tf1_names(), tf1_shapes)}
    back = cell.to_tf1(cell.to_tf2(tf1), gradients=False)
    for name in cell.tf1_names():
        np.testing.assert_allclose(back[name], tf1[name], atol=1e-6)


def test_convert_carries_the_cells_to_keras_and_back(tmp_path):
    # A TF1 run's checkpoint -> the Keras port's .weights.h5 -> a TF1 checkpoint.
    train = tmp_path / "run"
    run = subprocess.run(
        [sys.executable, "-m", "tf1_train.main", "--model=tests.user_models.row_rnn:plain",
         "--train_steps=3", f"--train_dir={train}", "--display_every=3"],
        cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    common = ["--tf2=tests.user_models.row_rnn_keras:build", f"--name_map={MAP}",
              "--input_shape=8,8,1", "--num_classes=10"]  # fmt: skip
    h5 = str(tmp_path / "port.weights.h5")
    there = _port("convert", str(train), h5, "--to=keras", *common)
    assert there.returncode == 0, there.stdout + there.stderr[-3000:]
    assert "missing" not in there.stdout
    assert "left over 1 (not in the TF2 model): global_step" in there.stdout
    back = _port("convert", h5, str(tmp_path / "back"), "--to=tf1", *common)
    assert back.returncode == 0, back.stdout + back.stderr[-3000:]
    before = tf.train.load_checkpoint(str(train))
    after = tf.train.load_checkpoint(str(tmp_path / "back"))
    names = sorted(after.get_variable_to_shape_map())
    assert names == sorted(
        n for n in before.get_variable_to_shape_map() if n.startswith(("rnn/", "softmax"))
    )
    for name in names:  # the forget bias goes on and comes off again: float32 rounding
        np.testing.assert_allclose(after.get_tensor(name), before.get_tensor(name), atol=1e-6)
