"""``tf.contrib.signal`` after tf1_train.compat.install(), and where
``tf.contrib.linalg`` went.

TF 1.15's ``tensorflow/contrib/signal/__init__.py`` imported every name from
``tensorflow.python.ops.signal``: the functions ``tf.signal`` has, so the
kept module hands out those same objects. keithito/tacotron's Griffin-Lim
(util/audio.py: ``tf.contrib.signal.stft`` and ``inverse_stft`` in a loop)
is the user here, built in its manner on a test tone.
"""

import numpy as np
import pytest
import tensorflow as tf

from tf1_train.compat import _contrib
from tf1_train.port import paths

v1 = tf.compat.v1


@pytest.mark.parametrize("name", _contrib.SIGNAL_KEPT)
def test_each_name_is_tf_signals_own_function(installed, name):
    import tensorflow.contrib.signal as signal

    assert getattr(signal, name) is getattr(tf.signal, name)


def test_a_name_tf_1_15_did_not_export_raises_one_line(installed):
    import tensorflow.contrib.signal as signal

    with pytest.raises(AttributeError, match="tensorflow.contrib.signal.frames was removed"):
        signal.frames  # noqa: B018


def _griffin_lim(magnitudes, iterations, n_fft=256, hop=64, win=256):
    """Tacotron's _griffin_lim_tensorflow, on contrib's names."""
    contrib = tf.contrib  # the attribute TF 1.x programs read after `import tensorflow as tf`
    spectrum = tf.cast(tf.expand_dims(magnitudes, 0), tf.complex64)
    y = contrib.signal.inverse_stft(spectrum, win, hop, n_fft)
    for _ in range(iterations):
        estimate = contrib.signal.stft(y, win, hop, n_fft, pad_end=False)
        angles = estimate / tf.cast(tf.maximum(1e-8, tf.abs(estimate)), tf.complex64)
        y = contrib.signal.inverse_stft(spectrum * angles, win, hop, n_fft)
    return tf.squeeze(y, 0)


def test_tacotron_style_griffin_lim_runs_and_brings_the_spectrum_closer(installed):
    t = np.arange(4096) / 8000.0
    tone = (np.sin(2 * np.pi * 440 * t) * np.hanning(t.size)).astype(np.float32)
    with tf.Graph().as_default():
        magnitudes = tf.abs(tf.signal.stft(tone, 256, 64, 256))
        errors = []
        for iterations in (0, 20):
            y = _griffin_lim(magnitudes, iterations)
            rebuilt = tf.abs(tf.signal.stft(y, 256, 64, 256))
            n = tf.minimum(tf.shape(rebuilt)[0], tf.shape(magnitudes)[0])
            errors.append(tf.norm(rebuilt[:n] - magnitudes[:n]) / tf.norm(magnitudes[:n]))
        with v1.Session() as sess:
            before, after = sess.run(errors)
    assert after < 0.7 * before, (before, after)  # 0.97 -> 0.53 here: no randomness in it


def test_contrib_linalg_points_at_tf_linalg_and_its_lower_triangular_operator():
    fix = paths.submodule_fix("tensorflow.contrib.linalg.LinearOperatorTriL")
    assert "tf.linalg.LinearOperatorLowerTriangular" in fix
    ones = tf.ones([3, 3])  # the transformers' causal mask
    mask = tf.linalg.LinearOperatorLowerTriangular(ones).to_dense()
    np.testing.assert_array_equal(mask.numpy(), np.tril(np.ones([3, 3])))
    assert "tf.signal" in paths.submodule_fix("tensorflow.contrib.signal.stft")
