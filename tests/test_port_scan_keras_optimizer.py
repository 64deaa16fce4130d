"""Keras 2's optimizer arguments (scan rules keras-optimizer-lr and
keras-optimizer-decay, tf1_train/port/keras_optimizer_rules.py).
tests/legacy_scripts/keras_decay_style.py trains 3 SGD steps with ``lr=0.1,
decay=0.5``; TensorFlow 1.15.5 ended at TF_1_15_5 (measured 2026-12-07).
Keras 3 refuses ``lr=``, ignores ``decay=`` (another path), and the scan's
schedule gives 1.15.5's weights."""

import os
import sys

import keras
import numpy as np
import pytest
from conftest import ROOT

from tf1_train.port import scan

SCRIPTS = os.path.join(ROOT, "tests", "legacy_scripts")
SCRIPT = os.path.join(SCRIPTS, "keras_decay_style.py")
TF_1_15_5 = [-0.108611, -0.341564, 0.485716]


def _trained(optimizer):
    sys.path.insert(0, SCRIPTS)
    try:
        import keras_decay_style as program
    finally:
        sys.path.remove(SCRIPTS)
    net = program.model()
    net.compile(loss="mse", optimizer=optimizer)
    for _ in range(3):
        net.train_on_batch(program.X, program.Y)
    return net.get_weights()[0].ravel()


def test_the_scans_schedule_trains_as_keras_2s_decay_did_on_tf_1_15_5():
    schedule = keras.optimizers.schedules.InverseTimeDecay(0.1, decay_steps=1, decay_rate=0.5)
    np.testing.assert_allclose(_trained(keras.optimizers.SGD(schedule)), TF_1_15_5, atol=2e-6)
    with pytest.warns(UserWarning, match="decay"):
        ignored = keras.optimizers.SGD(learning_rate=0.1, decay=0.5)
    assert np.abs(_trained(ignored) - TF_1_15_5).max() > 0.05
    with pytest.raises(ValueError, match="lr"):
        keras.optimizers.SGD(lr=0.1)


def test_the_scan_reports_both_arguments_with_the_schedule_to_write():
    found = {f.rule: f for f in scan.scan([SCRIPT]).findings if f.rule.startswith("keras-opt")}
    assert found["keras-optimizer-lr"].severity == "breaks"
    assert found["keras-optimizer-decay"].severity == "changes numbers"
    assert found["keras-optimizer-decay"].fix.startswith(
        "learning_rate=keras.optimizers.schedules.InverseTimeDecay(0.1, decay_steps=1, "
        "decay_rate=0.5)"
    )
