"""A batch norm subclass overriding ``_moments``, TF 1.x's hook for the
batch statistics that TPU code overrides for cross-replica batch norm
(tensorflow/tpu's ``TpuBatchNormalization``, SimCLR's ``BatchNormalization``,
with ``fused=False``). tf1_train.compat's legacy layer computed the
statistics without calling it until 2026-12-07, so such an override was
dropped without a word, and named a subclass's scope after the base class
(TF 1.x: the subclass's name in snake case, ``tpu_batch_normalization``, the
names in EfficientNet's checkpoints). tests/legacy_scripts/bn_moments_style.py
printed TF_1_15_5 on TensorFlow 1.15.5 (measured). A legacy layer inside a
``tf.keras.Model`` is also called once in Keras 3's trace of the model, in a
graph of its own; only the real graph's update ops go to its UPDATE_OPS
(checked against TensorFlow 1.15.5: 2 of them, as below)."""

import os

import pytest
from conftest import ROOT, run_legacy_script

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "bn_moments_style.py")
TF_1_15_5 = {
    "calls": "1",
    "outputs": "-1.197305 -1.263354 -0.942604 -0.922730 -0.476901 -0.436961 0.126162 0.158859 "
    "0.840305 0.847205 1.650342 1.616980 2.546024 2.460335 3.519829 3.371332 4.565928 4.345278 "
    "5.679630 5.378338 6.857058 6.467307 8.094930 7.609447",
    "moving_mean": "0.664796 0.828164",
    "variables": "half_batch_normalization/beta:0 half_batch_normalization/gamma:0 "
    "half_batch_normalization/moving_mean:0 half_batch_normalization/moving_variance:0",
}


def _floats(text: str) -> list:
    return [float(v) for v in text.split()]


def test_an_overridden_moments_gives_tf_1_15_5s_batch_norm(tmp_path):
    out = run_legacy_script("--v1", tmp_path, SCRIPT)
    assert out["calls"] == TF_1_15_5["calls"]
    assert out["variables"] == TF_1_15_5["variables"]  # the subclass's name, as TF 1.x's
    for key in ("outputs", "moving_mean"):
        assert _floats(out[key]) == pytest.approx(_floats(TF_1_15_5[key]), abs=3e-6)


def test_a_mask_raises_one_line(installed):
    import tensorflow as tf

    from tf1_train.compat import layers

    with tf.Graph().as_default():
        layer = layers.BatchNormalization(fused=False)
        with pytest.raises(NotImplementedError, match="unmasked statistics"):
            layer._moments(tf.zeros([2, 3]), [0], keep_dims=False, mask=tf.ones([2]))


def test_a_legacy_batch_norm_in_a_keras_model_puts_this_graphs_updates_only(installed):
    import tensorflow as tf

    from tf1_train.compat import layers

    class Model(tf.keras.Model):  # EfficientNet's efficientnet_model.Model, in small
        def __init__(self):
            super().__init__()
            self.conv = tf.keras.layers.Conv2D(3, 1)  # a Keras layer: Keras 3 traces call()
            self.bn = layers.BatchNormalization()

        def call(self, x, training=True):
            return self.bn(self.conv(x), training=training)

    with tf.Graph().as_default() as graph:
        y = Model()(tf.zeros([2, 4, 4, 3]), training=True)
        updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        assert len(updates) == 2 and all(u.graph is graph for u in updates)
        with tf.control_dependencies(updates):
            tf.identity(y)
