"""``tf.keras.layers.Wrapper`` around ``tf.layers`` layers (tf1_train/compat/_wrapper.py).

Keras 3's Wrapper refuses anything but a Keras 3 layer; under install() the
name is TF 1.x's, which held the legacy layers. The numbers and names are
held to tf_keras's real legacy layers by tests/test_compat_layers.py (model
``wrapped_layers``); here: the names switch and switch back, what TF 1.x
checked is checked, and a WaveNet-style script (ours) trains as written."""

import os
import re

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

from tf1_train import compat
from tf1_train.compat import _wrapper, layers

v1 = tf.compat.v1
SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "wavenet_wrapper_style.py")


@pytest.fixture
def installed():
    compat.install()
    yield
    compat.uninstall()


class Twice(_wrapper.Wrapper):
    def call(self, inputs):
        return 2.0 * self.layer(inputs)


def test_keras3s_wrapper_refuses_a_legacy_layer_and_install_switches_the_name_both_ways():
    keras3 = tf.keras.layers.Wrapper
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="isn't a supported layer type"):
            keras3(layers.Conv1D(2, 3))
    compat.install()
    try:
        assert tf.keras.layers.Wrapper is _wrapper.Wrapper
        assert v1.keras.layers.Wrapper is _wrapper.Wrapper
    finally:
        compat.uninstall()
    assert tf.keras.layers.Wrapper is keras3


def test_a_wrapper_around_a_legacy_or_a_keras3_layer_builds_it_in_its_own_scope(installed):
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [2, 4])
        with v1.variable_scope("outer"):
            a = Twice(layers.Dense(3, name="legacy"))(x)
            b = Twice(tf.keras.layers.Dense(3, name="keras3"))(x)
        names = [v.name for v in v1.trainable_variables()]
        legacy, keras3 = "outer/legacy/", "outer/twice_1/keras3/"  # Keras 3: by name scope
        assert names == [p + w for p in (legacy, keras3) for w in ("kernel:0", "bias:0")]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            one = np.ones([2, 4], np.float32)
            out_a, out_b, (k, bias) = sess.run([a, b, v1.trainable_variables()[:2]], {x: one})
        np.testing.assert_allclose(out_a, 2.0 * (one @ k + bias), rtol=1e-6)
        assert out_b.shape == (2, 3)


def test_default_names_count_per_graph_and_unknown_arguments_are_refused():
    for _ in range(2):
        with tf.Graph().as_default():
            names = [Twice(layers.Dense(1)).name for _ in range(3)]
            assert names == ["twice", "twice_1", "twice_2"]
    with pytest.raises(TypeError, match="Keyword argument not understood: unitz"):
        Twice(layers.Dense(1), unitz=3)


def test_the_input_spec_it_sets_is_checked_on_each_call_as_tf1_did():
    class Ranked(Twice):
        def build(self, input_shape):
            self.input_spec = layers.InputSpec(ndim=3)
            super().build(input_shape)

    with tf.Graph().as_default():
        layer = Ranked(layers.Conv1D(2, 1))
        layer(v1.placeholder(tf.float32, [2, 5, 3]))
        with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
            layer(v1.placeholder(tf.float32, [2, 3]))


def test_a_legacy_layer_built_by_hand_makes_its_variables_in_its_own_scope():
    # WaveNet's WeightNorm calls layer.build(list) and layer.add_variable itself.
    with tf.Graph().as_default():
        with v1.variable_scope("m"):
            dense = layers.Dense(3, name="d")
            dense.build([None, 4])
            g = dense.add_variable("g", [3])
        assert [v.name for v in v1.global_variables()] == ["m/d/kernel:0", "m/d/bias:0", "m/d/g:0"]
        assert g in dense.trainable_variables


def test_a_wavenet_style_script_trains_as_written(tmp_path):
    proc = run_cli(["--v1", SCRIPT, str(tmp_path)], module="tf1_train.compat", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, last = map(float, re.search(r"loss ([\d.]+) -> ([\d.]+)", proc.stdout).groups())
    assert last < first / 4
    names = [n for n, _ in tf.train.list_variables(str(tmp_path / "model.ckpt"))]
    convs = ["first_conv", "last_conv", "residual_conv_0", "residual_conv_1", "residual_conv_2"]
    # As tf_keras's legacy layers name them (the same script with TF_USE_LEGACY_KERAS=1).
    assert [n for n in names if "Adam" not in n and "power" not in n] == [
        f"WaveNet_model/{conv}/{w}" for conv in convs for w in ("bias", "g", "kernel")
    ]
