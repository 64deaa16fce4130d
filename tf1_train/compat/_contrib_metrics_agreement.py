"""``tf.contrib.metrics``' agreement metrics, as TF 1.15 computed them:
``cohen_kappa`` (raters' agreement beyond chance, over a running confusion
table: Kaggle-era grading and triage models reported it) and
``streaming_mean_cosine_distance`` (1 - the running mean of the dot product
along ``dim``: it expects unit vectors and normalises nothing). Neither has a
``tf.compat.v1.metrics`` twin with contrib's arguments; TF2's
``tf.keras.metrics.CosineSimilarity`` reports the similarity, not the
distance, and normalises.
"""

import tensorflow as tf
from tensorflow.python.ops import metrics_impl

from tf1_train.compat._contrib_metrics import _reported

v1 = tf.compat.v1


def cohen_kappa(labels, predictions_idx, num_classes, weights=None, metrics_collections=None,
                updates_collections=None, name=None):  # fmt: skip
    """(po - pe) / (N - pe) over the confusion table so far: po its diagonal,
    pe the chance agreement of its row and column sums (float64, as TF 1.15)."""
    if tf.executing_eagerly():
        raise RuntimeError(
            "tf.contrib.metrics.cohen_kappa is not supported when eager execution is enabled."
        )
    if num_classes < 2:
        raise ValueError(f"`num_classes` must be >= 2.Found: {num_classes}")
    with v1.variable_scope(name, "cohen_kappa", (labels, predictions_idx, weights)):
        labels.get_shape().with_rank_at_most(2)
        if labels.get_shape().ndims == 2:
            labels = tf.squeeze(labels, axis=[-1])
        predictions_idx, labels, weights = metrics_impl._remove_squeezable_dimensions(
            predictions=predictions_idx, labels=labels, weights=weights
        )
        predictions_idx.get_shape().assert_is_compatible_with(labels.get_shape())
        integer = weights is None or weights.dtype.is_integer
        stat_dtype = tf.int64 if integer else tf.float32
        po, pe_row, pe_col = (
            metrics_impl.metric_variable((num_classes,), stat_dtype, name=n)
            for n in ("po", "pe_row", "pe_col")
        )
        table = tf.math.confusion_matrix(
            labels, predictions_idx, num_classes=num_classes, weights=weights,
            dtype=stat_dtype, name="counts_in_table",
        )  # fmt: skip
        update_po = v1.assign_add(po, tf.linalg.diag_part(table))
        update_pe_row = v1.assign_add(pe_row, tf.reduce_sum(table, axis=0))
        update_pe_col = v1.assign_add(pe_col, tf.reduce_sum(table, axis=1))
        kappa = _kappa(po, pe_row, pe_col, "value")
        update = _kappa(update_po, update_pe_row, update_pe_col, "update_op")
        return _reported(kappa, update, metrics_collections, updates_collections)


def _kappa(po, pe_row, pe_col, name: str):
    f64 = tf.float64
    total = tf.reduce_sum(pe_row)
    pe_sum = tf.reduce_sum(
        tf.math.divide_no_nan(tf.cast(pe_row * pe_col, f64), tf.cast(total, f64))
    )
    po_sum, total = tf.cast(tf.reduce_sum(po), f64), tf.cast(total, f64)
    return metrics_impl._safe_scalar_div(po_sum - pe_sum, total - pe_sum, name=name)


def streaming_mean_cosine_distance(predictions, labels, dim, weights=None,
                                   metrics_collections=None, updates_collections=None,
                                   name=None):  # fmt: skip
    """1 - the running (weighted) mean of ``sum(predictions * labels, dim)``."""
    predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
        predictions, labels, weights
    )
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    radial = tf.reduce_sum(tf.multiply(predictions, labels), axis=[dim], keepdims=True)
    mean, update = v1.metrics.mean(radial, weights, None, None, name or "mean_cosine_distance")
    value, update = tf.subtract(1.0, mean), tf.subtract(1.0, update)
    return _reported(value, update, metrics_collections, updates_collections)
