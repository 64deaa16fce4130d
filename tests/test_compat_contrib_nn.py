"""``tf.contrib.nn`` after tf1_train.compat.install(), held to TensorFlow
1.15.5 itself (tests/goldens/contrib_nn.npz, scripts/make_contrib_nn_goldens.py).

TensorFlow's own Inception trainer (tensorflow/models' research/inception)
reaches it through its private slim's ``cross_entropy_loss``: a trainer in
that manner (towers on the CPUs, the flipped loss in each) runs here as
written, through ``python -m tf1_train.compat``.
"""

import os

import numpy as np
import pytest
import tensorflow as tf

from tests import contrib_nn_cases as cases
from tests.conftest import ROOT, run_cli
from tf1_train.compat import _contrib, _contrib_nn
from tf1_train.port import paths

GOLDEN = os.path.join(ROOT, "tests", "goldens", "contrib_nn.npz")
SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "inception_towers_style.py")
v1 = tf.compat.v1


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN) as f:
        return {k: f[k] for k in f.files}


@pytest.fixture(scope="module")
def ours(golden, installed_module):
    import tensorflow.contrib.nn as contrib_nn

    data = {k[3:]: v for k, v in golden.items() if k.startswith("in/")}
    with tf.Graph().as_default():
        out = cases.build(tf, contrib_nn, data)
        with v1.Session() as sess:
            return sess.run(out)


@pytest.fixture(scope="module")
def installed_module():
    from tf1_train import compat

    was = compat.is_installed()
    compat.install()
    yield
    if not was:
        compat.uninstall()


def test_every_output_and_gradient_is_tf_1_15s(golden, ours):
    assert str(golden["version"]).startswith("1.15")
    expected = {k[4:]: v for k, v in golden.items() if k.startswith("out/")}
    # the same outputs, and a gradient exactly where TF 1.15 had one (the
    # softmax loss passes none to its labels, the sigmoid one does to its targets)
    assert sorted(ours) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(ours[name], value, rtol=2e-5, atol=2e-6, err_msg=name)


def test_alpha_dropout_draws_tf_1_15s_mask_from_the_same_seeds(golden, ours):
    x, kept = golden["in/x"], golden["out/alpha_dropout"]
    keep = 0.8
    a = (keep + keep * (1 - keep) * _contrib_nn.ALPHA**2) ** -0.5
    dropped = np.isclose(kept, a * _contrib_nn.ALPHA - a * _contrib_nn.ALPHA * (1 - keep))
    assert 0.1 < dropped.mean() < 0.3  # about 1 - keep_prob of the units, not the x values
    np.testing.assert_array_equal(np.isclose(ours["alpha_dropout"], kept), np.ones_like(x, bool))


def test_conv1d_transpose_takes_both_tf1_spellings(installed_module, golden):
    import tensorflow.contrib.nn as contrib_nn

    signal, filt = golden["in/signal"], golden["in/filter"]
    with tf.Graph().as_default():
        old = contrib_nn.conv1d_transpose(  # TF 1.4-1.13's keywords and seventh argument
            signal, filt, [2, 14, 4], 2, "SAME", "NWC", "up"
        )
        old_keywords = contrib_nn.conv1d_transpose(
            value=signal, filter=filt, output_shape=[2, 14, 4], stride=2
        )
        new = contrib_nn.conv1d_transpose(  # TF 1.14-1.15's
            input=signal, filters=filt, output_shape=[2, 14, 4], strides=2, dilations=1
        )
        assert old.op.name.startswith("up")
        with pytest.raises(TypeError, match="multiple values for argument 'input'"):
            contrib_nn.conv1d_transpose(signal, filt, [2, 14, 4], 2, value=signal)
        with v1.Session() as sess:
            values = sess.run([old, old_keywords, new])
    for value in values:
        np.testing.assert_allclose(value, golden["out/conv1d_transpose"], rtol=2e-5, atol=2e-6)


def test_tf1s_argument_checks_stay(installed_module):
    import tensorflow.contrib.nn as contrib_nn

    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        with pytest.raises(ValueError, match=r"range \(0, 1\], got 1.5"):
            contrib_nn.alpha_dropout(x, 1.5)
        assert contrib_nn.alpha_dropout(x, 1.0) is not None
        w, b, labels, inputs = tf.ones([10, 3]), tf.zeros([10]), tf.zeros([2, 1], tf.int64), x
        with pytest.raises(ValueError, match=r"num_resampled \(4\) must be less than"):
            contrib_nn.rank_sampled_softmax_loss(w, b, labels, inputs, 4, 4, 10, 1, None, 1.0,
                                                 True, "div")  # fmt: skip
        default_sampler = contrib_nn.rank_sampled_softmax_loss(
            w, b, labels, inputs, 6, 3, 10, 1, None, 1.0, True, "mod"
        )
        assert default_sampler.shape.as_list() == [2]


def test_every_name_is_kept_and_the_scanner_says_where_it_went():
    assert _contrib.kept("nn", "deprecated_flipped_softmax_cross_entropy_with_logits")
    assert all(_contrib.kept("nn", name) for name in _contrib_nn.KEPT)
    assert len(_contrib_nn.KEPT) == 9  # TF 1.15's tensorflow/contrib/nn/__init__.py
    fix = paths.submodule_fix("tensorflow.contrib.nn.deprecated_flipped_softmax_cross_entropy")
    assert "labels=" in fix and "logits=" in fix


def test_an_inception_style_tower_trainer_trains_as_written(tmp_path):
    out = run_cli(["--v1", "--gpus_as_cpus=2", SCRIPT, f"--train_dir={tmp_path}"],
                  module="tf1_train.compat", env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    values = dict(line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)
    first, last = float(values["first_loss"]), float(values["last_loss"])
    assert last < 0.7 * first, (first, last)
    assert values["towers"] == "2" and values["devices"] == "/device:CPU:0,/device:CPU:1"
    assert os.path.exists(os.path.join(tmp_path, "model.ckpt-30.index"))
