"""``tf.contrib.estimator`` after install(), when tensorflow-estimator is
installed: TF 1.x's Estimator extras.

TF 1.15's ``tf.contrib.estimator`` was tensorflow-estimator's contrib
package. What moved into ``tf.estimator`` is served as that object:
``add_metrics``, ``InMemoryEvaluatorHook``, the early-stopping hooks and
``read_eval_metrics``, ``call_logit_fn``, the logit function builders and
the ``BaselineEstimator``, ``DNNEstimator``, ``LinearEstimator`` and
``DNNLinearCombinedEstimator`` that took its heads. Its head factories were
TF 1.x's v1 heads with one difference, the ``SUM_OVER_BATCH_SIZE`` loss
reduction (the canned classifiers' own heads sum): written again here around
the same v1 heads, with contrib's arguments and defaults
(``multi_class_head``, ``binary_classification_head``, ``regression_head``,
``poisson_regression_head``, ``logistic_regression_head``). The two export
functions call the Estimator methods that replaced them. The rest
(``multi_label_head`` and ``multi_head``, which had classes of their own,
``forward_features``, ``clip_gradients_by_norm``, ``replicate_model_fn`` and
``TowerOptimizer``, the RNN and boosted-trees estimators) raises one line.
"""

from __future__ import annotations

# name: (module of tensorflow-estimator, attribute)
FROM_ESTIMATOR = {
    "add_metrics": ("extenders", "add_metrics"),
    "InMemoryEvaluatorHook": ("hooks.hooks", "InMemoryEvaluatorHook"),
    "make_early_stopping_hook": ("early_stopping", "make_early_stopping_hook"),
    "read_eval_metrics": ("early_stopping", "read_eval_metrics"),
    "stop_if_higher_hook": ("early_stopping", "stop_if_higher_hook"),
    "stop_if_lower_hook": ("early_stopping", "stop_if_lower_hook"),
    "stop_if_no_increase_hook": ("early_stopping", "stop_if_no_increase_hook"),
    "stop_if_no_decrease_hook": ("early_stopping", "stop_if_no_decrease_hook"),
    "call_logit_fn": ("model_fn", "call_logit_fn"),
    "dnn_logit_fn_builder": ("canned.dnn", "dnn_logit_fn_builder"),
    "linear_logit_fn_builder": ("canned.linear", "linear_logit_fn_builder"),
    "BaselineEstimator": ("canned.baseline", "BaselineEstimator"),
    "DNNEstimator": ("canned.dnn", "DNNEstimator"),
    "LinearEstimator": ("canned.linear", "LinearEstimator"),
    "DNNLinearCombinedEstimator": ("canned.dnn_linear_combined", "DNNLinearCombinedEstimator"),
}
HEADS = (
    "multi_class_head",
    "binary_classification_head",
    "regression_head",
    "poisson_regression_head",
    "logistic_regression_head",
)
EXPORTS = ("export_saved_model_for_mode", "export_all_saved_models")
KEPT = tuple(FROM_ESTIMATOR) + HEADS + EXPORTS
GONE = (
    "its heads (but multi_label_head and multi_head), early-stopping hooks, add_metrics, "
    "InMemoryEvaluatorHook, the *Estimator classes and export functions are kept "
    "(with tensorflow-estimator installed); replicate_model_fn and TowerOptimizer: "
    "RunConfig(train_distribute=tf.distribute.MirroredStrategy()); multi_label_head, "
    "multi_head: tf.estimator's Keras-2 heads are refused too, write the loss in your model_fn"
)


# tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE, contrib's heads' default
SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"


def _head_lib():
    from tensorflow_estimator.python.estimator.canned import head

    return head


def multi_class_head(
    n_classes,
    weight_column=None,
    label_vocabulary=None,
    loss_reduction=SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
):
    """TF 1.x's softmax cross-entropy head, the loss averaged over the batch."""
    return _head_lib()._multi_class_head_with_softmax_cross_entropy_loss(
        n_classes=n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        name=name,
    )


def binary_classification_head(
    weight_column=None,
    thresholds=None,
    label_vocabulary=None,
    loss_reduction=SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
):
    """TF 1.x's sigmoid cross-entropy head, the loss averaged over the batch."""
    return _head_lib()._binary_logistic_head_with_sigmoid_cross_entropy_loss(
        weight_column=weight_column,
        thresholds=thresholds,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        name=name,
    )


def regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    inverse_link_fn=None,
    name=None,
):
    """TF 1.x's squared-error head, the loss averaged over batch and label dimension."""
    return _head_lib()._regression_head(
        weight_column=weight_column,
        label_dimension=label_dimension,
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        inverse_link_fn=inverse_link_fn,
        name=name,
    )


def poisson_regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=SUM_OVER_BATCH_SIZE,
    compute_full_loss=True,
    name=None,
):
    """The regression head on ``log_poisson_loss``, predicting ``exp(logits)``."""
    import tensorflow as tf

    def poisson_loss(labels, logits):
        return tf.nn.log_poisson_loss(labels, logits, compute_full_loss=compute_full_loss)

    return regression_head(
        weight_column, label_dimension, loss_reduction, poisson_loss, tf.exp, name
    )


def logistic_regression_head(weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE, name=None):
    """The regression head on sigmoid cross-entropy, labels in [0, 1], predicting
    ``sigmoid(logits)``."""
    import tensorflow as tf

    def logistic_loss(labels, logits):
        labels = _head_lib()._assert_range(
            labels, n_classes=2, message="Labels must be in range [0, 1]"
        )
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    return regression_head(weight_column, 1, loss_reduction, logistic_loss, tf.sigmoid, name)


def export_saved_model_for_mode(
    estimator,
    export_dir_base,
    input_receiver_fn,
    assets_extra=None,
    as_text=False,
    checkpoint_path=None,
    mode=None,
):
    """``estimator.export_saved_model(..., experimental_mode=mode)``."""
    from tensorflow_estimator.python.estimator.mode_keys import ModeKeys

    return estimator.export_saved_model(
        export_dir_base,
        input_receiver_fn,
        assets_extra=assets_extra,
        as_text=as_text,
        checkpoint_path=checkpoint_path,
        experimental_mode=mode or ModeKeys.PREDICT,
    )


def export_all_saved_models(
    estimator,
    export_dir_base,
    input_receiver_fn_map,
    assets_extra=None,
    as_text=False,
    checkpoint_path=None,
):
    """``estimator.experimental_export_all_saved_models(...)``."""
    return estimator.experimental_export_all_saved_models(
        export_dir_base,
        input_receiver_fn_map,
        assets_extra=assets_extra,
        as_text=as_text,
        checkpoint_path=checkpoint_path,
    )


def kept(name: str) -> bool:
    """Whether ``tf.contrib.estimator.<name>`` works after install()."""
    from tf1_train.compat import _estimator

    return name in KEPT and _estimator.available()


def resolve(name: str):
    """``tf.contrib.estimator.<name>``."""
    import importlib

    from tf1_train.compat import _estimator

    if not _estimator.available():
        raise AttributeError(f"tensorflow.contrib.estimator.{name}: {_estimator.INSTALL_HINT}")
    if name in FROM_ESTIMATOR:
        module, attribute = FROM_ESTIMATOR[name]
        package = "tensorflow_estimator.python.estimator."
        return getattr(importlib.import_module(package + module), attribute)
    return globals()[name]
