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
from conftest import ROOT, raising_lines

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


# kernels after 3 steps of TF 1.15.5's tf.keras compiled with tf.train.AdamOptimizer(0.1),
# MomentumOptimizer(0.1, 0.9) and RMSPropOptimizer(0.1) (measured 2026-12-07)
V1_TF_1_15_5 = {
    "Adam": [0.203099, -0.528113, 0.705832],
    "Momentum": [-0.890131, -0.315285, 0.007961],
    "RMSProp": [-0.019527, -0.381226, 0.550711],
}
V1_PROGRAM = (
    "import tensorflow as tf\n"
    "from tensorflow import keras\n"
    "model = keras.Sequential([keras.layers.Dense(1)])\n"
    "model.compile(loss='mse', optimizer=tf.compat.v1.train.AdamOptimizer(0.1))\n"
    "opt = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)\n"
    "model.compile(opt, 'mse')\n"
    "model.compile(loss='mse', optimizer=keras.optimizers.Adam(0.1, epsilon=1e-8))\n"
)


def test_keras_3_refuses_a_tf_train_optimizer_exactly_where_the_scan_says(tmp_path):
    (tmp_path / "prog.py").write_text(V1_PROGRAM)
    found = [f for f in scan.scan([str(tmp_path)]).findings
             if f.rule == "keras-compile-v1-optimizer"]  # fmt: skip
    assert [(f.line, f.severity) for f in found] == [(4, "breaks"), (6, "breaks")]
    assert raising_lines(V1_PROGRAM, (ValueError,)) == {4, 6}
    assert found[0].fix.startswith("keras.optimizers.Adam(learning_rate=...) in model.compile")


def test_the_keras_optimizers_it_names_train_as_tf_1_15_5s_tf_keras_did():
    """Adam with TF 1.x's epsilon and SGD with momentum take TF 1.15.5's steps;
    RMSprop does not, as the fix says (its mean square starts at 0, not 1)."""
    adam = _trained(keras.optimizers.Adam(0.1, epsilon=1e-8))
    np.testing.assert_allclose(adam, V1_TF_1_15_5["Adam"], atol=2e-6)
    momentum = _trained(keras.optimizers.SGD(0.1, momentum=0.9))
    np.testing.assert_allclose(momentum, V1_TF_1_15_5["Momentum"], atol=2e-6)
    rmsprop = _trained(keras.optimizers.RMSprop(0.1, epsilon=1e-10))
    assert np.abs(rmsprop - V1_TF_1_15_5["RMSProp"]).max() > 0.05
