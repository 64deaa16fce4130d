"""``tensorflow.contrib.metrics`` after install(): TF 1.15's names that code
bases used, on TensorFlow 2.21's v1 metrics (held to TensorFlow 1.15.5 by
tests/test_compat_contrib_metrics.py).

Most ``streaming_*`` functions were ``tf.compat.v1.metrics``' own under
another name, **with the arguments the other way round**:
``streaming_auc(predictions, labels, ...)`` against ``tf.metrics.auc(labels,
predictions, ...)``. A port that renames the call and keeps the positional
arguments computes another number without an error (an AUC of the labels
ranked by the predictions' values); the names here keep TF 1.15's order
(``_SAME_AS_CORE``). ``streaming_covariance`` and
``streaming_pearson_correlation`` were contrib's own (a running co-moment,
Chan et al.'s parallel update), written here the same way; ``count``, the
false positive/negative rates, ``streaming_recall_at_k`` (in-top-k ids),
``accuracy`` (no variables), ``streaming_concat``,
``aggregate_metrics``/``aggregate_metric_map``, ``confusion_matrix`` and the
``set_*`` ops as well, and the top-k precision and recall in contrib's name
scopes; the metrics over thresholds (the confusion counts and rates,
``f1_score``) are in _contrib_metrics_thresholds.py, ``cohen_kappa`` and the
cosine distance in _contrib_metrics_agreement.py, the curves and what is read
off them (``streaming_curve_points``, ``precision_recall_at_equal_thresholds``,
``recall_at_precision``, ``precision_at_recall``) in
_contrib_metrics_curves.py, and the AUCs that do not bin predictions at fixed
thresholds (``streaming_dynamic_auc``, ``auc_with_confidence_intervals``,
``auc_using_histogram``) in _contrib_metrics_auc.py: every name of TF 1.15's
module.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable, Dict, Tuple

import tensorflow as tf
from tensorflow.python.ops import metrics_impl, weights_broadcast_ops

v1 = tf.compat.v1
_COLLECTIONS = ("weights", "metrics_collections", "updates_collections", "name")
_PAIR = ("predictions", "labels")

# contrib name: (tf.compat.v1.metrics name, TF 1.15's parameters in order, their defaults)
_SAME_AS_CORE: Dict[str, Tuple[str, tuple, dict]] = {
    **{f"streaming_{n}": (n, _PAIR + _COLLECTIONS, {})
       for n in ("true_positives", "true_negatives", "false_positives", "false_negatives",
                 "accuracy", "precision", "recall", "mean_absolute_error",
                 "mean_squared_error", "root_mean_squared_error")},
    "streaming_mean": ("mean", ("values",) + _COLLECTIONS, {}),
    "streaming_mean_tensor": ("mean_tensor", ("values",) + _COLLECTIONS, {}),
    "streaming_percentage_less": ("percentage_below", ("values", "threshold") + _COLLECTIONS, {}),
    "streaming_auc": ("auc", _PAIR + ("weights", "num_thresholds", "metrics_collections",
                                      "updates_collections", "curve", "name"),
                      {"num_thresholds": 200, "curve": "ROC"}),
    "streaming_specificity_at_sensitivity": (
        "specificity_at_sensitivity", _PAIR + ("sensitivity", "weights", "num_thresholds")
        + _COLLECTIONS[1:], {"num_thresholds": 200}),
    "streaming_sensitivity_at_specificity": (
        "sensitivity_at_specificity", _PAIR + ("specificity", "weights", "num_thresholds")
        + _COLLECTIONS[1:], {"num_thresholds": 200}),
    "streaming_precision_at_thresholds": (
        "precision_at_thresholds", _PAIR + ("thresholds",) + _COLLECTIONS, {}),
    "streaming_recall_at_thresholds": (
        "recall_at_thresholds", _PAIR + ("thresholds",) + _COLLECTIONS, {}),
    "streaming_sparse_recall_at_k": (
        "recall_at_k", _PAIR + ("k", "class_id") + _COLLECTIONS, {}),
    "streaming_sparse_precision_at_k": (
        "precision_at_k", _PAIR + ("k", "class_id") + _COLLECTIONS, {}),
    "streaming_sparse_average_precision_at_k": (
        "average_precision_at_k", _PAIR + ("k",) + _COLLECTIONS, {}),
    "streaming_mean_relative_error": (
        "mean_relative_error", _PAIR + ("normalizer",) + _COLLECTIONS, {}),
    "streaming_mean_iou": ("mean_iou", _PAIR + ("num_classes",) + _COLLECTIONS, {}),
}  # fmt: skip


@functools.cache
def _same_as_core(name: str) -> Callable:
    """TF 1.15's function ``name``: its parameters, passed by keyword to core's
    (built once: each lookup gives the same function)."""
    core, params, defaults = _SAME_AS_CORE[name]
    # the parameters before weights (or class_id) have no default
    required = min(i for i, p in enumerate(params) if p in ("weights", "class_id"))
    signature = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                           default=inspect.Parameter.empty if i < required
                           else defaults.get(p, None))
         for i, p in enumerate(params)]
    )  # fmt: skip

    def metric(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return getattr(v1.metrics, core)(**bound.arguments)

    metric.__name__ = metric.__qualname__ = name
    metric.__signature__ = signature
    metric.__doc__ = f"TF 1.15's tf.contrib.metrics.{name}: tf.compat.v1.metrics.{core}."
    return metric


def _add(collections, value):
    if collections:
        v1.add_to_collections(collections, value)


def _reported(value, update, metrics_collections, updates_collections):
    """(value, update), each added to its collections."""
    _add(metrics_collections, value)
    _add(updates_collections, update)
    return value, update


def streaming_sparse_average_precision_at_top_k(top_k_predictions, labels, weights=None,
                                                metrics_collections=None,
                                                updates_collections=None, name=None):  # fmt: skip
    return metrics_impl._streaming_sparse_average_precision_at_top_k(
        labels=labels, predictions_idx=top_k_predictions, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name,
    )  # fmt: skip


def streaming_sparse_precision_at_top_k(top_k_predictions, labels, class_id=None, weights=None,
                                        metrics_collections=None, updates_collections=None,
                                        name=None):  # fmt: skip
    return _at_top_k("precision", labels, top_k_predictions, class_id, weights,
                     metrics_collections, updates_collections, name)  # fmt: skip


def sparse_recall_at_top_k(labels, top_k_predictions, class_id=None, weights=None,
                           metrics_collections=None, updates_collections=None,
                           name=None):  # fmt: skip
    """Labels first, as TF 1.15 had it (its precision twin takes the predictions first)."""
    return _at_top_k("recall", labels, top_k_predictions, class_id, weights,
                     metrics_collections, updates_collections, name)  # fmt: skip


def _at_top_k(kind, labels, top_k, class_id, weights, metrics_collections, updates_collections,
              name):  # fmt: skip
    """core's ``<kind>_at_top_k`` in the name scope contrib gave it."""
    scope = f"{kind}_at_k" if class_id is None else f"{kind}_at_k_class{class_id}"
    with v1.name_scope(name, scope, (top_k, labels, weights)) as name_scope:
        return getattr(v1.metrics, f"{kind}_at_top_k")(
            labels=labels, predictions_idx=top_k, class_id=class_id, weights=weights,
            metrics_collections=metrics_collections, updates_collections=updates_collections,
            name=name_scope,
        )  # fmt: skip


def _rate(kind: str):
    """``streaming_false_<kind>_rate``: false / (false + true), 0 before any."""
    false_fn = getattr(v1.metrics, f"false_{kind}s")
    true_fn = v1.metrics.true_negatives if kind == "positive" else v1.metrics.true_positives

    def rate(predictions, labels, weights=None, metrics_collections=None,
             updates_collections=None, name=None):  # fmt: skip
        with v1.variable_scope(name, f"false_{kind}_rate", (predictions, labels, weights)):
            predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
                predictions=tf.cast(predictions, tf.bool), labels=tf.cast(labels, tf.bool),
                weights=weights,
            )  # fmt: skip
            pair = {"labels": labels, "predictions": predictions, "weights": weights}
            false, false_update = false_fn(**pair)
            true, true_update = true_fn(**pair)

            def ratio(f, t, op_name):
                return v1.where(tf.greater(f + t, 0), tf.math.divide(f, f + t), 0, op_name)

            value = ratio(false, true, "value")
            update = ratio(false_update, true_update, "update_op")
            return _reported(value, update, metrics_collections, updates_collections)

    rate.__name__ = rate.__qualname__ = f"streaming_false_{kind}_rate"
    return rate


streaming_false_positive_rate = _rate("positive")
streaming_false_negative_rate = _rate("negative")


def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):  # fmt: skip
    """The mean of whether each label is among the ``k`` highest predictions."""
    in_top_k = tf.cast(v1.nn.in_top_k(predictions, labels, k), tf.float32)
    return _same_as_core("streaming_mean")(
        in_top_k, weights, metrics_collections, updates_collections, name or f"recall_at_{k}"
    )


def streaming_covariance(predictions, labels, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):  # fmt: skip
    """The running (weighted) covariance: each batch's co-moment merged into
    the total with the means' correction; NaN until two values are counted."""
    with v1.variable_scope(name, "covariance", (predictions, labels, weights)):
        predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
            predictions, labels, weights
        )
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        state = {
            n: metrics_impl.metric_variable([], tf.float32, name=n)
            for n in ("count", "mean_prediction", "mean_label", "comoment")
        }
        if weights is None:
            n_batch = tf.cast(tf.size(labels), tf.float32)
            weighted = (predictions, labels)
        else:
            weights = weights_broadcast_ops.broadcast_weights(weights, labels)
            n_batch = tf.reduce_sum(weights)
            weighted = (tf.multiply(predictions, weights), tf.multiply(labels, weights))
        n_total = v1.assign_add(state["count"], n_batch)
        n_before = n_total - n_batch
        means = []  # (batch mean, mean before this batch) of predictions, then labels
        for key, values in zip(("mean_prediction", "mean_label"), weighted):
            batch_mean = tf.math.divide_no_nan(tf.reduce_sum(values), n_batch)
            delta = tf.math.divide_no_nan((batch_mean - state[key]) * n_batch, n_total)
            means.append((batch_mean, v1.assign_add(state[key], delta) - delta))
        (batch_p, before_p), (batch_l, before_l) = means
        residuals = (predictions - batch_p) * (labels - batch_l)
        batch_comoment = tf.reduce_sum(residuals if weights is None else residuals * weights)
        delta = batch_comoment + (before_p - batch_p) * (before_l - batch_l) * (
            n_before * n_batch / n_total
        )
        update_comoment = v1.assign_add(state["comoment"], delta)
        count, comoment = state["count"], state["comoment"]

        def covariance(op_name):
            ratio = tf.truediv(comoment, count - 1)
            return v1.where(tf.less_equal(count, 1.0), float("nan"), ratio, name=op_name)

        value = covariance("covariance")
        with tf.control_dependencies([update_comoment]):
            update = covariance("update_op")
    return _reported(value, update, metrics_collections, updates_collections)


def streaming_pearson_correlation(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):  # fmt: skip
    """cov(p, l) / sqrt(var(p) var(l)), from three running covariances."""
    with v1.variable_scope(name, "pearson_r", (predictions, labels, weights)):
        predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
            predictions, labels, weights
        )
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        if weights is not None:
            weights = weights_broadcast_ops.broadcast_weights(weights, labels)
        pairs = {"covariance": (predictions, labels),
                 "variance_predictions": (predictions, predictions),
                 "variance_labels": (labels, labels)}  # fmt: skip
        (cov, cov_up), (var_p, var_p_up), (var_l, var_l_up) = [
            streaming_covariance(a, b, weights=weights, name=n) for n, (a, b) in pairs.items()
        ]
        value = tf.truediv(cov, tf.multiply(tf.sqrt(var_p), tf.sqrt(var_l)), name="pearson_r")
        update = tf.truediv(
            cov_up, tf.multiply(tf.sqrt(var_p_up), tf.sqrt(var_l_up)), name="update_op"
        )
    return _reported(value, update, metrics_collections, updates_collections)


def count(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How many values (or the sum of their weights) have been seen."""
    with v1.variable_scope(name, "count", (values, weights)):
        total = metrics_impl.metric_variable([], tf.float32, name="count")
        if weights is None:
            seen = tf.cast(tf.size(values), tf.float32)
        else:
            values = tf.cast(values, tf.float32)
            values, _, weights = metrics_impl._remove_squeezable_dimensions(
                predictions=values, labels=None, weights=weights
            )
            weights = weights_broadcast_ops.broadcast_weights(tf.cast(weights, tf.float32), values)
            seen = tf.reduce_sum(weights)
        with tf.control_dependencies([values]):
            update = v1.assign_add(total, seen)
        total = metrics_impl._aggregate_variable(total, metrics_collections)
        _add(updates_collections, update)
        return total, update


def accuracy(predictions, labels, weights=None, name=None):
    """The (weighted) fraction of ``predictions == labels`` in this batch (no variables)."""
    if not (labels.dtype.is_integer or labels.dtype in (tf.bool, tf.string)):
        raise ValueError(f"Labels should have bool, integer, or string dtype, not {labels.dtype!r}")
    if not labels.dtype.is_compatible_with(predictions.dtype):
        raise ValueError(
            "Dtypes of predictions and labels should match. Given: predictions "
            f"({predictions.dtype!r}) and labels ({labels.dtype!r})"
        )
    with v1.name_scope(name, "accuracy", [predictions, labels]):
        correct = tf.cast(tf.equal(predictions, labels), tf.float32)
        if weights is None:
            return tf.reduce_mean(correct)
        correct = tf.multiply(correct, weights)
        counted = tf.multiply(weights, tf.ones_like(correct))
        return tf.math.divide(tf.reduce_sum(correct), tf.reduce_sum(counted))


def aggregate_metrics(*value_update_tuples):
    """([values], [update ops]) of (value, update op) pairs."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    values, updates = zip(*value_update_tuples)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples):
    """({name: value}, {name: update op}) of {name: (value, update op)}."""
    names = names_to_tuples.keys()
    values, updates = zip(*names_to_tuples.values())
    return dict(zip(names, values)), dict(zip(names, updates))


def confusion_matrix(labels, predictions, num_classes=None, dtype=tf.int32, name=None,
                     weights=None):  # fmt: skip
    return tf.math.confusion_matrix(labels, predictions, num_classes, weights, dtype, name)


def streaming_concat(values, axis=0, max_size=None, metrics_collections=None,
                     updates_collections=None, name=None):  # fmt: skip
    """Every batch's ``values`` so far, concatenated along ``axis`` (the
    first ``max_size`` only, if given). TF 1.15 grew a preallocated array in
    place (reference variables); here the array variable holds the rows kept."""
    with v1.variable_scope(name, "streaming_concat", (values,)):
        shape = values.get_shape()
        if shape.dims is None:
            raise ValueError("`values` must have known statically known rank")
        ndim = len(shape)
        axis = axis + ndim if axis < 0 else axis
        if not 0 <= axis < ndim:
            raise ValueError(f"axis = {axis!r} not in [0, {ndim!r})")
        fixed = [d for n, d in enumerate(shape.as_list()) if n != axis]
        if any(d is None for d in fixed):
            raise ValueError(
                "all dimensions of `values` other than the dimension to concatenate along "
                "must have statically known size"
            )
        start = [0 if max_size is None else max_size] + fixed
        array = metrics_impl.metric_variable(
            start, values.dtype, validate_shape=False, name="array"
        )
        size = metrics_impl.metric_variable([], tf.int32, name="size")
        kept = array[:size]
        kept.set_shape([None] + fixed)
        back = [0 if n == axis else n + 1 if n < axis else n for n in range(ndim)]
        value = tf.transpose(kept, back, name="concat")
        arriving = tf.shape(values)[axis]
        batch = arriving if max_size is None else tf.minimum(arriving, max_size - size)
        front = [axis] + [n for n in range(ndim) if n != axis]
        appended = tf.concat([kept, tf.transpose(values, front)[:batch]], 0)
        with tf.control_dependencies([v1.assign(array, appended, validate_shape=False)]):
            update = size.assign(size + batch)
        return _reported(value, update, metrics_collections, updates_collections)


set_size, set_intersection = tf.sets.size, tf.sets.intersection
set_difference, set_union = tf.sets.difference, tf.sets.union

KEPT = tuple(sorted(set(_SAME_AS_CORE) | {
    "streaming_sparse_average_precision_at_top_k", "streaming_false_positive_rate",
    "streaming_false_negative_rate", "streaming_recall_at_k", "streaming_covariance",
    "streaming_pearson_correlation", "count", "accuracy", "aggregate_metrics",
    "aggregate_metric_map", "confusion_matrix", "set_size", "set_intersection",
    "set_difference", "set_union", "f1_score", "streaming_concat",
    "streaming_true_positives_at_thresholds", "streaming_false_negatives_at_thresholds",
    "streaming_true_negatives_at_thresholds", "streaming_false_positives_at_thresholds",
    "streaming_false_positive_rate_at_thresholds", "streaming_false_negative_rate_at_thresholds",
    "streaming_sparse_precision_at_top_k", "sparse_recall_at_top_k", "cohen_kappa",
    "streaming_mean_cosine_distance", "streaming_curve_points",
    "precision_recall_at_equal_thresholds", "recall_at_precision", "precision_at_recall",
    "streaming_dynamic_auc", "auc_with_confidence_intervals", "auc_using_histogram",
}))  # fmt: skip
GONE = "every name of TF 1.15's tensorflow.contrib.metrics is kept"


def metric_ops_names() -> tuple:
    """TF 1.15's ``contrib.metrics.python.ops.metric_ops``' functions: the
    streaming metrics of KEPT (that module held every one but the set ops,
    the classification and agreement helpers)."""
    return tuple(n for n in KEPT if n.startswith("streaming_") or n in METRIC_OPS_OTHERS)


METRIC_OPS_OTHERS = ("aggregate_metric_map", "aggregate_metrics", "auc_with_confidence_intervals",
                     "cohen_kappa", "confusion_matrix", "count", "precision_at_recall",
                     "precision_recall_at_equal_thresholds", "recall_at_precision",
                     "sparse_recall_at_top_k")  # fmt: skip


def resolve(name: str):
    """``tf.contrib.metrics.<name>`` for a name of KEPT."""
    from tf1_train.compat import _contrib_metrics_agreement as agreement
    from tf1_train.compat import _contrib_metrics_auc as auc
    from tf1_train.compat import _contrib_metrics_curves as curves
    from tf1_train.compat import _contrib_metrics_thresholds as thresholds

    if name in _SAME_AS_CORE:
        return _same_as_core(name)
    for module in (thresholds, agreement, curves, auc):
        if hasattr(module, name):
            return getattr(module, name)
    return globals()[name]
