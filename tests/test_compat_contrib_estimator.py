"""tf.contrib.estimator after tf1_train.compat.install() with tensorflow-estimator
installed (tf1_train/compat/_contrib_estimator.py): the names that moved into
tf.estimator as those objects, contrib's heads with their batch-mean loss,
the export functions, and one line for the rest."""

import importlib
import math

import numpy as np
import pytest
import tensorflow as tf

from tf1_train.compat import _contrib_estimator

v1 = tf.compat.v1


def test_kept_names_are_the_estimators_objects_and_the_rest_one_line(installed):
    contrib = importlib.import_module("tensorflow.contrib.estimator")
    package = "tensorflow_estimator.python.estimator."
    for name, (module, attribute) in _contrib_estimator.FROM_ESTIMATOR.items():
        assert getattr(contrib, name) is getattr(
            importlib.import_module(package + module), attribute
        )
    assert contrib.DNNEstimator is v1.estimator.DNNEstimator
    assert contrib.stop_if_no_decrease_hook is v1.estimator.experimental.stop_if_no_decrease_hook
    names = {}
    exec("from tensorflow.contrib.estimator import multi_class_head, add_metrics", names)
    assert names["add_metrics"] is v1.estimator.add_metrics
    for gone in ("replicate_model_fn", "TowerOptimizer", "multi_label_head", "forward_features"):
        with pytest.raises(AttributeError) as raised:
            getattr(contrib, gone)
        assert "was removed with tf.contrib" in str(raised.value)
        assert "\n" not in str(raised.value)


def _poisson_full(labels, logits):
    """log_poisson_loss with its Stirling term, which counts only for labels > 1."""
    z = np.maximum(labels, 1.0)  # the term's value at labels <= 1 is not used
    stirling = np.where(labels > 1, z * np.log(z) - z + 0.5 * np.log(2 * math.pi * z), 0.0)
    return np.exp(logits) - labels * logits + stirling


def _sigmoid_xent(labels, logits):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


# head factory, kwargs, labels, logits, per-example loss, PREDICT's "predictions" or None
LOGITS = np.array([[0.5], [-1.0], [1.5]], np.float32)
HEADS = {
    "multi_class_head": (
        {"n_classes": 3},
        np.array([[1], [2], [0]]),
        np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.0, 0.1, -0.4]], np.float32),
        lambda y, x: np.log(np.exp(x).sum(1)) - x[np.arange(3), y[:, 0]],
        None,
    ),
    "binary_classification_head": ({}, np.array([[1.0], [0.0], [1.0]], np.float32), LOGITS,
                                   lambda y, x: _sigmoid_xent(y, x)[:, 0], None),
    "regression_head": ({}, np.array([[1.0], [0.0], [2.0]], np.float32), LOGITS,
                        lambda y, x: ((y - x) ** 2)[:, 0], lambda x: x),
    "poisson_regression_head": ({}, np.array([[1.0], [3.0], [0.0]], np.float32), LOGITS,
                                lambda y, x: _poisson_full(y, x)[:, 0], np.exp),
    "logistic_regression_head": ({}, np.array([[1.0], [0.0], [1.0]], np.float32), LOGITS,
                                 lambda y, x: _sigmoid_xent(y, x)[:, 0],
                                 lambda x: 1 / (1 + np.exp(-x))),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HEADS))
def test_contribs_heads_average_their_loss_over_the_batch(installed, name):
    # contrib's heads were the v1 heads with SUM_OVER_BATCH_SIZE (the canned
    # classifiers' own sum): the mean of the per-example loss, not its sum.
    kwargs, labels, logits, per_example, predicted = HEADS[name]
    factory = getattr(v1.contrib.estimator, name)
    with tf.Graph().as_default(), v1.Session() as sess:
        head = factory(**kwargs)
        loss = head.create_loss({}, v1.estimator.ModeKeys.TRAIN, tf.constant(logits),
                                tf.constant(labels)).training_loss  # fmt: skip
        summed = factory(**kwargs, loss_reduction=v1.losses.Reduction.SUM).create_loss(
            {}, v1.estimator.ModeKeys.TRAIN, tf.constant(logits), tf.constant(labels))  # fmt: skip
        spec = head.create_estimator_spec({}, v1.estimator.ModeKeys.PREDICT, tf.constant(logits))
        sess.run(v1.tables_initializer())
        loss, summed, predictions = sess.run([loss, summed.training_loss, spec.predictions])
    expected = per_example(labels, logits)
    np.testing.assert_allclose(loss, expected.mean(), rtol=1e-5)
    np.testing.assert_allclose(summed, expected.sum(), rtol=1e-5)
    if predicted is not None:
        np.testing.assert_allclose(predictions["predictions"], predicted(logits), rtol=1e-5)


def test_a_dnn_estimator_with_contribs_head_trains_exports_and_stops_early(installed, tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(240, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0).astype(np.int32)
    contrib = v1.contrib.estimator
    estimator = contrib.DNNEstimator(
        head=contrib.multi_class_head(3), hidden_units=[8],
        feature_columns=[v1.feature_column.numeric_column("x", shape=[4])],
        model_dir=str(tmp_path / "model"), optimizer=v1.train.AdamOptimizer(0.05),
    )  # fmt: skip
    train = v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=40, num_epochs=None,
                                               shuffle=False)  # fmt: skip
    test = v1.estimator.inputs.numpy_input_fn({"x": x}, y, shuffle=False)

    def stop_above(threshold):  # its stop flag is a variable: the hook is there from step 0
        return contrib.stop_if_higher_hook(estimator, "accuracy", threshold,
                                           run_every_secs=None, run_every_steps=1)  # fmt: skip

    estimator.train(train, steps=60, hooks=[stop_above(2.0)])  # no evaluation yet: never stops
    assert estimator.evaluate(test)["accuracy"] > 0.8
    # It reads the evaluation just written: accuracy is above 0, so it stops at once.
    estimator.train(train, steps=100, hooks=[stop_above(0.0)])
    assert 60 < estimator.get_variable_value("global_step") < 65

    def serving():
        images = v1.placeholder(tf.float32, [None, 4])
        return v1.estimator.export.ServingInputReceiver({"x": images}, {"x": images})

    exported = contrib.export_saved_model_for_mode(estimator, str(tmp_path / "export"), serving)
    assert (tmp_path / "export").exists() and exported.startswith(str(tmp_path / "export").encode())
