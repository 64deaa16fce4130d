"""TF 1.x canned Estimators trained the same way twice: by tensorflow-estimator's
own Keras 2 logit functions (scripts/make_estimator_goldens.py, under tf_keras)
and by tf1_train.compat's (tests/test_compat_estimator_canned.py).

Each case trains one step from the graph's seeded start and saves; the step-1
checkpoint is the golden's, so both sides go on from the same values (op
seeds depend on how many ops came before, which differs between the two
builders): 20 more steps on the same batches, then evaluate and predict.
"""

import numpy as np

STEPS = 20


def data():
    rng = np.random.RandomState(0)
    x = rng.randn(96, 4).astype(np.float32)
    c = np.array([["a", "b", "c"][i % 3] for i in range(96)])
    y = ((x[:, 0] > 0).astype(np.int32) + (c == "b")).astype(np.int32)
    return x, c, y


def _columns(tf):
    numeric = tf.feature_column.numeric_column("x", shape=[4])
    category = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])
    return numeric, category, tf.feature_column.embedding_column(category, 2)


def make(tf, name: str, model_dir: str):
    """The case's Estimator; ``tf`` is the v1 API (tf.compat.v1)."""
    numeric, category, embedded = _columns(tf)
    config = tf.estimator.RunConfig(tf_random_seed=3, save_summary_steps=5)
    if name == "dnn_classifier":
        return tf.estimator.DNNClassifier(
            hidden_units=[8, 4], feature_columns=[numeric, embedded], n_classes=3,
            batch_norm=True, model_dir=model_dir, config=config,
        )  # fmt: skip
    if name == "linear_classifier":
        return tf.estimator.LinearClassifier(
            feature_columns=[numeric, category], n_classes=3, model_dir=model_dir, config=config
        )
    if name == "dnn_regressor":
        indicator = tf.feature_column.indicator_column(category)
        return tf.estimator.DNNRegressor(
            hidden_units=[6], feature_columns=[numeric, indicator], model_dir=model_dir,
            config=config, optimizer=tf.train.GradientDescentOptimizer(0.002),
        )  # fmt: skip
    if name == "dnn_linear_combined_classifier":
        return tf.estimator.DNNLinearCombinedClassifier(
            linear_feature_columns=[category], dnn_feature_columns=[numeric, embedded],
            dnn_hidden_units=[5], n_classes=3, model_dir=model_dir, config=config,
        )  # fmt: skip
    raise ValueError(name)


CASES = ("dnn_classifier", "linear_classifier", "dnn_regressor", "dnn_linear_combined_classifier")


def _input(tf, shuffle_free_epochs=None, with_labels=True):
    x, c, y = data()
    return tf.estimator.inputs.numpy_input_fn(
        {"x": x, "c": c}, y if with_labels else None, batch_size=16,
        num_epochs=shuffle_free_epochs, shuffle=False,
    )  # fmt: skip


def first_step(tf, name: str, model_dir: str) -> None:
    """One step from the seeded start, saved as model.ckpt-1."""
    make(tf, name, model_dir).train(_input(tf), steps=1)


def go_on(tf, name: str, model_dir: str) -> dict:
    """STEPS more steps from model_dir's checkpoint, then what a user reads."""
    estimator = make(tf, name, model_dir)
    estimator.train(_input(tf), steps=STEPS)
    metrics = estimator.evaluate(_input(tf, 1))
    predictions = list(estimator.predict(_input(tf, 1, with_labels=False)))
    keys = sorted(k for k in predictions[0] if k not in ("classes", "all_classes"))
    return {
        "variables": {
            v: np.asarray(estimator.get_variable_value(v)).tolist()
            for v in estimator.get_variable_names()
        },
        "metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": {k: [np.asarray(p[k]).tolist() for p in predictions] for k in keys},
    }
