"""Tacotron's encoder on the legacy layers: tests/legacy_scripts/cbhg_style.py
(ours, in keithito/tacotron's manner: conv1d banks, max_pooling1d with
stride 1, batch normalization, highways, a bidirectional GRU from
tf.contrib.rnn) trains unmodified under ``python -m tf1_train.compat --v1``.
Before tf1_train.compat had the 1-D layers it stopped at its first
``tf.layers.conv1d`` with AttributeError."""

import os
import re

from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "cbhg_style.py")


def test_a_cbhg_encoder_trains_as_written():
    proc = run_cli(["--v1", SCRIPT], module="tf1_train.compat", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(v) for v in re.findall(r"^loss \d+ ([\d.]+)$", proc.stdout, re.M)]
    assert len(losses) == 25
    assert losses[-1] < 0.9 * losses[0], losses
    # 47 trainable (the bank's and projections' conv1d kernels and biases among them),
    # 12 moving statistics, global_step, Adam's 94 slots and its 2 powers
    assert "variables 156" in proc.stdout
