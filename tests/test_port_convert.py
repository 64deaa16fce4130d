"""`python -m tf1_train.port convert`: the CIFAR-10 tutorial's TF1 checkpoint
into its Keras 3 port's ``.weights.h5`` and back, through the example's name map."""

import numpy as np
import pytest
import tensorflow as tf

from examples.cifar10_tutorial import model as tutorial
from examples.cifar10_tutorial.model_keras import build_keras_model
from tests.conftest import ROOT
from tf1_train.port import convert

SHAPE = (24, 24, 3)
FLAGS = [
    "--tf2=examples.cifar10_tutorial.model_keras:build_keras_model",
    f"--name_map={ROOT}/examples/cifar10_tutorial/name_map.json",
    "--input_shape=24,24,3",
    "--num_classes=10",
]


def _tf1_checkpoint(tmp_path, images):
    """A TF1 Saver checkpoint of the tutorial model, and its logits on ``images``."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        logits = tutorial.inference(tf.constant(images), False, 10)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = {v.op.name: sess.run(v) for v in v1.global_variables()}
            prefix = v1.train.Saver().save(sess, str(tmp_path / "tf1" / "model.ckpt"), 5)
            return prefix, sess.run(logits), values


def test_tf1_checkpoint_to_keras_weights_and_back(tmp_path, capsys):
    images = np.random.default_rng(0).normal(size=(4, *SHAPE)).astype(np.float32)
    prefix, want, values = _tf1_checkpoint(tmp_path, images)
    weights = str(tmp_path / "port.weights.h5")
    assert convert.main([prefix, weights, "--to=keras", *FLAGS]) == 0
    assert "restored 10 variable(s)" in capsys.readouterr().out
    model = build_keras_model(SHAPE, 10)
    model.load_weights(weights)
    np.testing.assert_array_equal(model(images, training=False).numpy(), want)  # identical
    assert convert.main([weights, str(tmp_path / "back"), "--to=tf1", *FLAGS]) == 0
    back = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(tmp_path / "back")))
    assert sorted(back.get_variable_to_shape_map()) == sorted(values)
    for name, value in values.items():
        np.testing.assert_array_equal(back.get_tensor(name), value, err_msg=name)


def test_nothing_is_written_unless_every_variable_fits(tmp_path, capsys):
    images = np.zeros((1, *SHAPE), np.float32)
    prefix, _, _ = _tf1_checkpoint(tmp_path, images)
    weights = tmp_path / "port.weights.h5"
    other = [f for f in FLAGS if not f.startswith("--num_classes")] + ["--num_classes=5"]
    assert convert.main([prefix, str(weights), "--to=keras", *other]) == 1
    out = capsys.readouterr().out
    assert "softmax_linear/weights: shape [192, 10] in SRC, [192, 5] in the model" in out
    assert not weights.exists()


def test_momentum_slots_and_step_go_to_a_tf2_checkpoint_and_back(tmp_path, capsys):
    v1 = tf.compat.v1
    images = np.random.default_rng(1).normal(size=(4, *SHAPE)).astype(np.float32)
    with tf.Graph().as_default():
        v1.set_random_seed(4)
        logits = tutorial.inference(tf.constant(images), True, 10)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 2, 3, 4], logits=logits)
        )
        step = v1.train.get_or_create_global_step()
        train = v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss, step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            values = {v.op.name: sess.run(v) for v in v1.global_variables()}
            prefix = v1.train.Saver().save(sess, str(tmp_path / "tf1" / "model.ckpt"), 1)
    assert "conv1/weights/Momentum" in values and values["global_step"] == 1
    flags = [*FLAGS, "--optimizer=momentum"]
    tf2 = str(tmp_path / "tf2" / "ckpt")
    assert convert.main([prefix, tf2, "--to=tf2", *flags]) == 0
    assert "left over" not in capsys.readouterr().out  # every slot found its place
    assert convert.main([tf2, str(tmp_path / "back"), "--to=tf1", *flags]) == 0
    back = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(tmp_path / "back")))
    assert sorted(back.get_variable_to_shape_map()) == sorted(values)
    for name, value in values.items():
        np.testing.assert_array_equal(back.get_tensor(name), value, err_msg=name)


def _v1_loss_scale(loss):
    """v1's dynamic loss scale, as a TF1 fp16 script had it (one step)."""
    v1 = tf.compat.v1
    sgd = v1.train.GradientDescentOptimizer(0.01)
    return v1.mixed_precision.MixedPrecisionLossScaleOptimizer(sgd, "dynamic").minimize(loss)


def _tf1_train_loss_scale(loss):
    """tf1_train's --precision=fp16 state, under its checkpoint names."""
    from tf1_train import saved_scale

    v1 = tf.compat.v1
    v1.get_variable(saved_scale.SCALE, initializer=4096.0, trainable=False)
    v1.get_variable(saved_scale.GOOD_STEPS, initializer=17, trainable=False)
    v1.get_variable(saved_scale.SKIPPED, initializer=3, trainable=False)
    return v1.train.GradientDescentOptimizer(0.01).minimize(loss)


@pytest.mark.parametrize(
    "make, shown",
    [
        (_v1_loss_scale, "current_loss_scale = 32768, good_steps = 1; to go on at it: "
         "LossScaleOptimizer(..., initial_scale=32768)"),
        (_tf1_train_loss_scale, "loss_scale/good_steps = 17, loss_scale/scale = 4096, "
         "loss_scale/skipped_steps = 3; to go on at it: "
         "LossScaleOptimizer(..., initial_scale=4096)"),
    ],
    ids=["v1-optimizer", "tf1_train"],
)  # fmt: skip
def test_an_fp16_checkpoints_loss_scale_is_named_with_its_values(tmp_path, capsys, make, shown):
    v1 = tf.compat.v1
    images = np.zeros((2, *SHAPE), np.float32)
    with tf.Graph().as_default():
        logits = tutorial.inference(tf.constant(images), True, 10)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 2], logits=logits)
        )
        train = make(loss)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            prefix = v1.train.Saver().save(sess, str(tmp_path / "tf1" / "model.ckpt"), 1)
    assert convert.main([prefix, str(tmp_path / "port.weights.h5"), "--to=keras", *FLAGS]) == 0
    out = capsys.readouterr().out
    assert "left over" not in out
    line = "loss scale, not carried (a TF2 port keeps it in its LossScaleOptimizer): " + shown
    assert line in out.splitlines()
