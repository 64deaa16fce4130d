"""``tensorflow.contrib.metrics``' metrics over a list of thresholds (served
by _contrib_metrics.py), as TF 1.15 computed them: the confusion counts at
each threshold (``streaming_true_positives_at_thresholds``, ...), the false
positive and negative rates from them, and ``f1_score``, the best F1 over
``num_thresholds`` evenly spaced thresholds.

The counts are contrib's own (a prediction counts as positive above the
threshold, and unlike ``tf.metrics``' they do not check that the predictions
are in [0, 1]); ``f1_score`` used ``tf.metrics``' counts and took the labels
first, as ``tf.metrics`` does, unlike the module's ``streaming_*`` names.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import metrics_impl, weights_broadcast_ops

from tf1_train.compat._contrib_metrics import _add, _reported

v1 = tf.compat.v1


# (variable name, the label's truth, the prediction's truth) of each count
_COUNTS = {
    "tp": ("true_positives", True, True),
    "fn": ("false_negatives", True, False),
    "tn": ("true_negatives", False, False),
    "fp": ("false_positives", False, True),
}


def _counts_at_thresholds(predictions, labels, thresholds, weights, includes):
    """contrib's own confusion counts at each threshold ({key: variable},
    {key: update op}): a prediction counts as positive above the threshold.
    Unlike tf.metrics' it does not check that the predictions are in [0, 1]."""
    predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
        predictions, labels, weights
    )
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    n = len(thresholds)
    column = tf.reshape(predictions, [-1, 1])
    row_labels = tf.reshape(tf.cast(labels, tf.bool), [1, -1])
    count = column.get_shape().as_list()[0]
    count = tf.shape(column)[0] if count is None else count
    tiled = tf.tile(tf.expand_dims(tf.constant(thresholds), [1]), tf.stack([1, count]))
    positive = {True: tf.greater(tf.tile(tf.transpose(column), [n, 1]), tiled)}
    positive[False] = tf.logical_not(positive[True])
    label = {True: tf.tile(row_labels, [n, 1])}
    label[False] = tf.logical_not(label[True])
    tiled_weights = None
    if weights is not None:
        broadcast = weights_broadcast_ops.broadcast_weights(
            tf.cast(weights, tf.float32), predictions
        )
        tiled_weights = tf.tile(tf.reshape(broadcast, [1, -1]), [n, 1])
    values, updates = {}, {}
    for key in ("tp", "fn", "tn", "fp"):
        if key not in includes:
            continue
        name, label_is, prediction_is = _COUNTS[key]
        total = metrics_impl.metric_variable([n], tf.float32, name=name)
        hits = tf.cast(tf.logical_and(label[label_is], positive[prediction_is]), tf.float32)
        if tiled_weights is not None:
            hits *= tiled_weights
        updates[key] = v1.assign_add(total, tf.reduce_sum(hits, 1))
        values[key] = total
    return values, updates


def _count_at_thresholds(key: str):
    """``streaming_<count>_at_thresholds`` (no name: TF 1.15's had none)."""

    def count_at_thresholds(predictions, labels, thresholds, weights=None):
        values, updates = _counts_at_thresholds(predictions, labels, thresholds, weights, (key,))
        return values[key], updates[key]

    count_at_thresholds.__name__ = f"streaming_{_COUNTS[key][0]}_at_thresholds"
    return count_at_thresholds


streaming_true_positives_at_thresholds = _count_at_thresholds("tp")
streaming_false_negatives_at_thresholds = _count_at_thresholds("fn")
streaming_true_negatives_at_thresholds = _count_at_thresholds("tn")
streaming_false_positives_at_thresholds = _count_at_thresholds("fp")


def _rate_at_thresholds(kind: str):
    """``streaming_false_<kind>_rate_at_thresholds``: false / (1e-7 + false + true)."""
    false, true = ("fp", "tn") if kind == "positive" else ("fn", "tp")
    short = "fpr" if kind == "positive" else "fnr"

    def rate(predictions, labels, thresholds, weights=None, metrics_collections=None,
             updates_collections=None, name=None):  # fmt: skip
        scope = f"false_{kind}_rate_at_thresholds"
        with v1.variable_scope(name, scope, (predictions, labels, weights)):
            values, updates = _counts_at_thresholds(
                predictions, labels, thresholds, weights, (false, true)
            )

            def ratio(counts, suffix):
                f, t = counts[false], counts[true]
                return tf.math.divide(f, 1e-7 + f + t, name=f"{short}_{suffix}")

            value, update = ratio(values, "value"), ratio(updates, "update_op")
            return _reported(value, update, metrics_collections, updates_collections)

    rate.__name__ = rate.__qualname__ = f"streaming_false_{kind}_rate_at_thresholds"
    return rate


streaming_false_positive_rate_at_thresholds = _rate_at_thresholds("positive")
streaming_false_negative_rate_at_thresholds = _rate_at_thresholds("negative")


def f1_score(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
             updates_collections=None, name=None):  # fmt: skip
    """The best F1 score over ``num_thresholds`` thresholds of the predictions
    (in [0, 1]); labels first here, as in tf.metrics."""
    with v1.variable_scope(name, "f1", (labels, predictions, weights)):
        predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
            predictions=predictions, labels=labels, weights=weights
        )
        epsilon = 1e-7
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - epsilon] + inner + [1.0 + epsilon]
        values, updates = metrics_impl._confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", "fp", "fn")
        )

        def best_f1(counts, suffix):
            tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
            precision = tf.math.divide(tp, epsilon + tp + fp, name="precision_" + suffix)
            recall = tf.math.divide(tp, epsilon + tp + fn, name="recall_" + suffix)
            return tf.reduce_max(2.0 * precision * recall / (precision + recall + epsilon))

        def across_replicas(_, counts):
            value = best_f1(counts, "value")
            _add(metrics_collections, value)
            return value

        value = tf.distribute.get_replica_context().merge_call(across_replicas, args=(values,))
        update = best_f1(updates, "update")
        _add(updates_collections, update)
        return value, update
