"""A batch norm subclass overriding ``_moments``, TF 1.x's hook for the
batch statistics that TPU code overrides for cross-replica batch norm
(tensorflow/tpu's ``TpuBatchNormalization``, SimCLR's ``BatchNormalization``,
with ``fused=False``). tf1_train.compat's legacy layer computed the
statistics without calling it until 2026-12-07, so such an override was
dropped without a word. tests/legacy_scripts/bn_moments_style.py printed
TF_1_15_5 on TensorFlow 1.15.5 (measured)."""

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
}


def _floats(text: str) -> list:
    return [float(v) for v in text.split()]


def test_an_overridden_moments_gives_tf_1_15_5s_batch_norm(tmp_path):
    out = run_legacy_script("--v1", tmp_path, SCRIPT)
    assert out["calls"] == TF_1_15_5["calls"]
    for key in ("outputs", "moving_mean"):
        assert _floats(out[key]) == pytest.approx(_floats(TF_1_15_5[key]), abs=3e-6)


def test_a_mask_raises_one_line(installed):
    import tensorflow as tf

    from tf1_train.compat import layers

    with tf.Graph().as_default():
        layer = layers.BatchNormalization(fused=False)
        with pytest.raises(NotImplementedError, match="unmasked statistics"):
            layer._moments(tf.zeros([2, 3]), [0], keep_dims=False, mask=tf.ones([2]))
