"""TF 1.x's canned ``DNN*``, ``Linear*`` and ``DNNLinearCombined*`` Estimators
on Keras 3: their logit functions rebuilt on what TensorFlow 2.21 still has.

tensorflow-estimator 2.15's v1 canned Estimators are TF 1.x's model
functions (the v1 heads, ``SUM`` loss reduction, Adagrad/Ftrl defaults,
partitioners, summaries) around two logit functions that became Keras 2
models there: ``dnn_logit_fn_builder`` (a ``tf.keras.Model`` holding
``tf.compat.v1.layers`` under ``dnn/``, and ``DenseFeatures`` for v2 feature
columns) and ``linear_logit_fn_builder`` (a Keras 2 ``LinearModel`` for v2
columns). Keras 3 has neither ``DenseFeatures`` nor a ``Model`` that runs in a
v1 graph, so install() puts these two back in their modules, built as TF
1.x built them: ``feature_column.input_layer`` under
``input_from_feature_columns``, then ``tf.compat.v1.layers.Dense`` (tf1_train's
compat layers) under ``hiddenlayer_<i>`` with dropout and batch norm, then
``logits``; the linear logits from TensorFlow's own v1 ``_LinearModel``
(``linear_model``, ``bias_weights``), for v1 and v2 columns alike. Variable
names, summaries and everything around the logits are the package's own, so a
TF 1.x ``model_dir`` restores.
"""

from __future__ import annotations

# module of tensorflow-estimator, function name: the logit function builders replaced
BUILDERS = (
    ("tensorflow_estimator.python.estimator.canned.dnn", "dnn_logit_fn_builder"),
    ("tensorflow_estimator.python.estimator.canned.linear", "linear_logit_fn_builder"),
)


def dnn_logit_fn_builder(
    units, hidden_units, feature_columns, activation_fn, dropout, input_layer_partitioner,
    batch_norm,
):  # fmt: skip
    """TF 1.x's DNN logit function (called under the ``dnn`` variable scope)."""
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned import dnn
    from tensorflow_estimator.python.estimator.mode_keys import ModeKeys

    from tf1_train.compat import layers

    v1 = tf.compat.v1

    def dnn_logit_fn(features, mode):
        training = mode == ModeKeys.TRAIN
        with v1.variable_scope("input_from_feature_columns", partitioner=input_layer_partitioner):
            net = v1.feature_column.input_layer(features, feature_columns)
        for i, width in enumerate(hidden_units):
            with v1.variable_scope(f"hiddenlayer_{i}") as scope:
                hidden = layers.Dense(
                    width, activation=activation_fn,
                    kernel_initializer=v1.glorot_uniform_initializer(), name=scope, _scope=scope,
                )  # fmt: skip
                net = hidden(net)
                if dropout is not None and training:
                    net = layers.Dropout(rate=dropout)(net, training=True)
                if batch_norm:  # momentum 0.999: the estimator's (contrib's batch_norm's)
                    norm = layers.BatchNormalization(
                        momentum=0.999, name=f"batchnorm_{i}", _scope=f"batchnorm_{i}"
                    )
                    net = norm(net, training=training)
            dnn._add_hidden_layer_summary(net, scope.name)
        with v1.variable_scope("logits") as scope:
            logits = layers.Dense(
                units, kernel_initializer=v1.glorot_uniform_initializer(), name=scope,
                _scope=scope,
            )(net)  # fmt: skip
        dnn._add_hidden_layer_summary(logits, scope.name)
        return logits

    return dnn_logit_fn


def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """TF 1.x's linear logit function (called under the ``linear`` variable scope)."""
    import tensorflow as tf
    from tensorflow.python.feature_column import feature_column
    from tensorflow_estimator.python.estimator.canned import linear

    def linear_logit_fn(features):
        model = feature_column._LinearModel(
            feature_columns=feature_columns, units=units, sparse_combiner=sparse_combiner,
            name="linear_model",
        )  # fmt: skip
        logits = model(features)
        weights = model.cols_to_vars()
        bias = weights.pop("bias")
        variables = linear._get_expanded_variable_list(weights.values())
        if units > 1:
            tf.compat.v1.summary.histogram("bias", bias)
        else:
            tf.compat.v1.summary.scalar("bias", bias[0][0])
        fraction = linear._compute_fraction_of_zero(variables)
        tf.compat.v1.summary.scalar("fraction_of_zero_weights", fraction)
        return logits

    return linear_logit_fn


def install(put) -> None:
    """Puts both builders in tensorflow-estimator's modules through ``put``."""
    import importlib

    for module_name, name in BUILDERS:
        put(importlib.import_module(module_name), name, globals()[name])
