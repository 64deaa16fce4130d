"""``tf.contrib.metrics``' curves and what is read off them, as TF 1.15
computed them: ``streaming_curve_points`` (ROC or PR points at evenly spaced
thresholds), ``precision_recall_at_equal_thresholds`` (bucketed counts,
float64: segmentation code's per-pixel PR data), ``recall_at_precision`` and
``precision_at_recall``.

None of them has a ``tf.compat.v1.metrics`` twin, and each made its own
choices a port has to keep to give the same number: contrib's confusion
counts (a prediction is positive above a threshold, nothing checks [0, 1]),
1e-6 or 1e-7 added in different places, the threshold read off by the
closest precision or by the last admissible recall. The AUCs over the
predictions themselves are in _contrib_metrics_auc.py.
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf
from tensorflow.python.ops import metrics_impl

from tf1_train.compat._contrib_metrics import _reported
from tf1_train.compat._contrib_metrics_thresholds import _counts_at_thresholds

v1 = tf.compat.v1
_EPSILON = 1e-7


def _even_thresholds(num_thresholds: int, epsilon: float = _EPSILON) -> list:
    """contrib's thresholds: just below 0, evenly spaced inside, just above 1."""
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - epsilon] + inner + [1.0 + epsilon]


def _all_counts(predictions, labels, num_thresholds: int, weights):
    """contrib's four confusion counts at its even thresholds (variables, updates)."""
    thresholds = _even_thresholds(num_thresholds)
    return _counts_at_thresholds(predictions, labels, thresholds, weights, ("tp", "fn", "tn", "fp"))


def streaming_curve_points(labels=None, predictions=None, weights=None, num_thresholds=200,
                           metrics_collections=None, updates_collections=None, curve="ROC",
                           name=None):  # fmt: skip
    """``[num_thresholds, 2]`` points of the ROC (false positive rate, recall)
    or PR (recall, precision) curve over the counts so far."""
    with v1.variable_scope(name, "curve_points", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
        values, updates = _all_counts(predictions, labels, num_thresholds, weights)
        epsilon = 1.0e-6
        tp, fn, tn, fp = (values[k] for k in ("tp", "fn", "tn", "fp"))
        recall = tf.math.divide(tp + epsilon, tp + fn + epsilon)
        if curve == "ROC":
            xs, ys = tf.math.divide(fp, fp + tn + epsilon), recall
        else:
            xs, ys = recall, tf.math.divide(tp + epsilon, tp + fp + epsilon)
        points = tf.stack([xs, ys], axis=1)
        update = tf.group(*updates.values())
        return _reported(points, update, metrics_collections, updates_collections)


class PrecisionRecallData(NamedTuple):
    """``precision_recall_at_equal_thresholds``' result, in the predictions' dtype."""

    tp: tf.Tensor
    fp: tf.Tensor
    tn: tf.Tensor
    fn: tf.Tensor
    precision: tf.Tensor
    recall: tf.Tensor
    thresholds: tf.Tensor


def precision_recall_at_equal_thresholds(labels, predictions, weights=None, num_thresholds=None,
                                         use_locking=None, name=None):  # fmt: skip
    """Counts, precision and recall at ``num_thresholds`` (201) thresholds
    from 0 to 1, from float64 buckets scattered into: O(T + N), not O(T x N)."""
    num_thresholds = 201 if num_thresholds is None else num_thresholds
    weights = 1.0 if weights is None else weights
    use_locking = True if use_locking is None else use_locking
    v1.assert_type(labels, tf.bool)
    scope = "precision_recall_at_equal_thresholds"
    with v1.variable_scope(name, scope, (labels, predictions, weights)):
        message = "predictions must be in [0, 1]"
        in_range = [
            v1.assert_greater_equal(predictions, tf.cast(0.0, predictions.dtype), message=message),
            v1.assert_less_equal(predictions, tf.cast(1.0, predictions.dtype), message=message),
        ]
        with tf.control_dependencies(in_range):
            predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
                predictions=predictions, labels=labels, weights=weights
            )
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        f64 = tf.float64
        f_labels, weights = tf.cast(labels, f64), tf.cast(weights, f64)
        true_labels = tf.reshape(f_labels * weights, [-1])
        false_labels = tf.reshape((1.0 - f_labels) * weights, [-1])
        predictions = tf.reshape(predictions, [-1])
        buckets = tf.cast(tf.floor(predictions * (num_thresholds - 1)), tf.int32)
        with tf.name_scope("variables"):
            tp_buckets = metrics_impl.metric_variable([num_thresholds], f64, name="tp_buckets")
            fp_buckets = metrics_impl.metric_variable([num_thresholds], f64, name="fp_buckets")
        with tf.name_scope("update_op"):
            update_tp = v1.scatter_add(tp_buckets, buckets, true_labels, use_locking=use_locking)
            update_fp = v1.scatter_add(fp_buckets, buckets, false_labels, use_locking=use_locking)
        tp = tf.cumsum(tp_buckets, reverse=True, name="tp")
        fp = tf.cumsum(fp_buckets, reverse=True, name="fp")
        tn, fn = fp[0] - fp, tp[0] - tp
        epsilon = tf.convert_to_tensor(1e-7, dtype=f64)
        precision = tp / tf.maximum(epsilon, tp + fp)
        recall = tp / tf.maximum(epsilon, tp + fn)
        cast = lambda t: tf.cast(t, predictions.dtype)  # noqa: E731
        result = PrecisionRecallData(
            cast(tp), cast(fp), cast(tn), cast(fn), cast(precision), cast(recall),
            cast(tf.linspace(0.0, 1.0, num_thresholds)),
        )  # fmt: skip
        return result, tf.group(update_tp, update_fp)


def _plus_epsilon(total):
    """``total + 1e-7``, kept after the sum: TF 2.21's Grappler turns a chain of
    scalar adds into one AddN with the constant first, (1e-7 + tp) + fn, 1 ulp
    off TF 1.15's (tp + fn) + 1e-7 (a Sub is not in such chains; x - (-e) is x + e)."""
    return tf.subtract(total, -_EPSILON)


def _recall_at_precision(tp, fp, fn, precision, name, strict_mode):
    """The recall where the precision is closest to ``precision`` (strict: the
    recall where it is least above it, 0 if it is nowhere above)."""
    precisions = tf.math.divide(tp, tp + fp + _EPSILON)
    if not strict_mode:
        index = tf.argmin(tf.abs(precisions - precision), 0, output_type=tf.int32)
        return tf.math.divide(tp[index], _plus_epsilon(tp[index] + fn[index]), name)
    index = tf.argmax(
        tf.math.divide(1.0, precisions - precision + _EPSILON), 0, output_type=tf.int32
    )
    return v1.cond(
        precisions[index] >= precision,
        lambda: tf.math.divide(tp[index], _plus_epsilon(tp[index] + fn[index]), name),
        lambda: 0.0,
    )


def recall_at_precision(labels, predictions, precision, weights=None, num_thresholds=200,
                        metrics_collections=None, updates_collections=None, name=None,
                        strict_mode=False):  # fmt: skip
    """The recall at the threshold whose precision is closest to ``precision``."""
    if not 0 <= precision <= 1:
        raise ValueError("`precision` must be in the range [0, 1].")
    with v1.variable_scope(name, "recall_at_precision", (predictions, labels, weights)):
        values, updates = _all_counts(predictions, labels, num_thresholds, weights)

        def read(counts, op_name):
            tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
            return _recall_at_precision(tp, fp, fn, precision, op_name, strict_mode)

        value, update = read(values, "value"), read(updates, "update_op")
        return _reported(value, update, metrics_collections, updates_collections)


def precision_at_recall(labels, predictions, target_recall, weights=None, num_thresholds=200,
                        metrics_collections=None, updates_collections=None, name=None):  # fmt: skip
    """The precision at the highest threshold whose recall is at least
    ``target_recall`` (the last admissible one: recall falls as it rises)."""
    if tf.executing_eagerly():
        raise RuntimeError(
            "tf.metrics.precision_at_recall is not supported when eager execution is enabled."
        )
    if target_recall < 0 or target_recall > 1:
        raise ValueError("`target_recall` must be in the range [0, 1].")
    with v1.variable_scope(name, "precision_at_recall", (predictions, labels, weights)):
        values, updates = _all_counts(predictions, labels, num_thresholds, weights)

        def read(counts, op_name):
            tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
            recalls = tf.math.divide(tp, tp + fn + _EPSILON)
            admissible = tf.cast(tf.greater_equal(recalls, target_recall), tf.int64)
            index = tf.reduce_sum(admissible) - 1
            denominator = _plus_epsilon(tp[index] + fp[index])
            return tf.math.divide(tp[index] + _EPSILON, denominator, op_name)

        value, update = read(values, "value"), read(updates, "update_op")
        return _reported(value, update, metrics_collections, updates_collections)
