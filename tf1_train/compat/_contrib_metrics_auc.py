"""``tf.contrib.metrics``' AUCs that do not bin predictions at fixed
thresholds, as TF 1.15 computed them: ``streaming_dynamic_auc`` (every
prediction so far is a threshold: a Riemann sum over the kept predictions),
``auc_with_confidence_intervals`` (DeLong's placement values, Sun and Xu's
algorithm, and a normal interval, optionally on the logit scale) and
``auc_using_histogram`` (Bouckaert's histograms of the scores of each class).

``tf.compat.v1.metrics.auc`` is another number on the same data: it bins
the predictions at ``num_thresholds`` thresholds and sums trapezoids there.
The first two keep every prediction in memory (``streaming_concat``).
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf
from tensorflow.python.ops import confusion_matrix as confusion_ops
from tensorflow.python.ops import metrics_impl
from tensorflow.python.ops.distributions import special_math

from tf1_train.compat._contrib_metrics import _reported, streaming_concat

v1 = tf.compat.v1
_EPSILON = 1e-7


def _cumsum_at(values, splits):
    """The running sums of ``values`` (a 0 first) read at each split."""
    return tf.gather(tf.pad(tf.cumsum(values), paddings=[[1, 0]]), splits)


def _dynamic_auc(labels, predictions, curve, weights):
    """The area under the curve through every distinct prediction (float64)."""
    f64 = tf.float64
    size = tf.size(predictions)
    if weights is None:
        weights = tf.ones_like(labels, dtype=f64)
    labels, predictions, weights = metrics_impl._remove_squeezable_dimensions(
        labels, predictions, weights
    )
    total_weight = tf.reduce_sum(weights)
    total_positive = tf.reduce_sum(
        v1.where(tf.greater(labels, 0), weights, tf.zeros_like(labels, dtype=f64))
    )

    def area():
        ordered, indices = tf.nn.top_k(predictions, k=size)
        ordered_labels = tf.gather(labels, indices)
        ordered_weights = tf.gather(weights, indices)
        _, _, counts = tf.unique_with_counts(ordered)
        splits = tf.cast(tf.pad(tf.cumsum(counts), paddings=[[1, 0]]), tf.int32)
        zeros = tf.zeros_like(ordered_labels, dtype=f64)
        tp = _cumsum_at(v1.where(tf.greater(ordered_labels, 0), ordered_weights, zeros), splits)
        if curve == "ROC":
            fp = _cumsum_at(v1.where(tf.less(ordered_labels, 1), ordered_weights, zeros), splits)
            xs = tf.math.truediv(fp, total_weight - total_positive)
            ys = tf.math.truediv(tp, total_positive)
        else:
            xs = tf.math.truediv(tp, total_positive)
            positives = _cumsum_at(ordered_weights, splits)
            ys = v1.where(
                tf.greater(splits, 0),
                tf.math.truediv(tp, positives),
                tf.ones_like(tp, dtype=f64),
            )
        heights = tf.add(ys[1:], ys[:-1]) / 2.0
        widths = tf.abs(tf.subtract(xs[1:], xs[:-1]))
        return tf.reduce_sum(tf.multiply(heights, widths))

    one_class = tf.logical_or(tf.equal(total_positive, 0), tf.equal(total_positive, total_weight))
    return v1.cond(one_class, lambda: tf.constant(0, f64), area)


def _binary_labels_checked(labels):
    message = "labels must be 0 or 1, at least one is {}"
    return tf.control_dependencies([
        v1.assert_greater_equal(labels, tf.zeros_like(labels, tf.int64),
                                message=message.format("<0")),
        v1.assert_less_equal(labels, tf.ones_like(labels, tf.int64),
                             message=message.format(">1")),
    ])  # fmt: skip


def _flat(predictions, labels):
    """Both as 1-D tensors: float64 predictions, int64 labels."""
    return (tf.reshape(tf.cast(predictions, tf.float64), [-1]),
            tf.reshape(tf.cast(labels, tf.int64), [-1]))  # fmt: skip


def _kept(predictions, labels):
    """Every batch's predictions and labels so far (streaming_concat's):
    (predictions, labels, [their update ops])."""
    kept_predictions, update_predictions = streaming_concat(predictions, name="concat_preds")
    kept_labels, update_labels = streaming_concat(labels, name="concat_labels")
    return kept_predictions, kept_labels, [update_labels, update_predictions]


def streaming_dynamic_auc(labels, predictions, curve="ROC", metrics_collections=(),
                          updates_collections=(), name=None, weights=None):  # fmt: skip
    """The ROC or PR AUC with every prediction so far as a threshold (labels
    first, as tf.metrics): the predictions, labels and weights are kept."""
    if curve not in ["PR", "ROC"]:
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    with v1.variable_scope(name, default_name="dynamic_auc"):
        labels.get_shape().assert_is_compatible_with(predictions.get_shape())
        predictions, labels = _flat(predictions, labels)
        with _binary_labels_checked(labels):
            kept_predictions, kept_labels, updates = _kept(predictions, labels)
            kept_weights = None
            if weights is not None:
                weights = tf.reshape(tf.cast(weights, tf.float64), [-1])
                kept_weights, update_weights = streaming_concat(weights, name="concat_weights")
                updates.append(update_weights)
            update = tf.group(*updates)
            auc = _dynamic_auc(kept_labels, kept_predictions, curve, kept_weights)
            return _reported(auc, update, metrics_collections, updates_collections)


class AucData(NamedTuple):
    """``auc_with_confidence_intervals``' value: the AUC and its interval."""

    auc: tf.Tensor
    lower: tf.Tensor
    upper: tf.Tensor


def _placements(ordered_predictions, ordered_labels, ordered_weights):
    """Each example's placement value: the weighted share of the other class
    it outranks, ties counted half (DeLong; Sun and Xu's segment sums)."""
    _, segments = tf.unique(ordered_predictions)
    true = tf.cast(ordered_labels, tf.float32)
    false = 1.0 - true
    # each distinct score's weight of the other class (names as TF 1.15's)
    totals_true = tf.math.segment_sum(ordered_weights * false, segments)
    totals_false = tf.math.segment_sum(ordered_weights * true, segments)

    def placement(totals):
        below = tf.cumsum(totals, exclusive=True)
        share = (below + totals / 2.0) / (tf.reduce_sum(totals) + _EPSILON)
        return tf.gather(share, segments)

    return placement(totals_true) * true + placement(totals_false) * false


def _placement_auc(labels, predictions, weights, alpha, logit_transformation, is_valid):
    """AucData(auc, lower, upper) of the kept examples, or zeros if not is_valid."""
    size = tf.size(predictions, out_type=tf.int32)
    negative = tf.cast(1 - labels, weights.dtype)
    total_0 = tf.reduce_sum(negative * weights)
    total_1 = tf.reduce_sum(tf.cast(labels, weights.dtype) * weights)
    ordered, indices = tf.nn.top_k(predictions, k=size, sorted=True)
    first = tf.zeros(1, tf.int32)
    ordered, indices = tf.reverse(ordered, axis=first), tf.reverse(indices, axis=first)
    ordered_labels = tf.gather(labels, indices)
    ordered_weights = tf.gather(weights, indices)
    values = _placements(ordered, ordered_labels, ordered_weights)
    is_0 = tf.cast(1 - ordered_labels, weights.dtype)
    is_1 = tf.cast(ordered_labels, weights.dtype)
    values_0, weights_0 = values * is_0, ordered_weights * is_0
    values_1, weights_1 = values * is_1, ordered_weights * is_1
    auc_0 = tf.reduce_sum(weights_0 * (1.0 - values_0)) / (total_0 + _EPSILON)
    auc_1 = tf.reduce_sum(weights_1 * values_1) / (total_1 + _EPSILON)
    auc = v1.where(tf.less(total_0, total_1), auc_1, auc_0)
    var_0 = tf.reduce_sum(weights_0 * tf.square(1.0 - values_0 - auc_0)) / (
        total_0 - 1.0 + _EPSILON
    )
    var_1 = tf.reduce_sum(weights_1 * tf.math.squared_difference(values_1, auc_1)) / (
        total_1 - 1.0 + _EPSILON
    )
    std_err = tf.sqrt((var_0 / (total_0 + _EPSILON)) + (var_1 / (total_1 + _EPSILON)))
    # Normal(0, 1).quantile in float32, as TF 1.15's distributions computed it
    z = special_math.ndtri(tf.constant((1.0 - alpha) / 2.0, tf.float32))
    if logit_transformation:
        estimate = tf.math.log(auc / (1.0 - auc + _EPSILON))
        std_err = std_err / (auc * (1.0 - auc + _EPSILON))

        def back(x):  # the inverse logit
            return 1.0 / (1.0 + tf.exp(tf.negative(x)) + _EPSILON)

        lower, upper = back(estimate + z * std_err), back(estimate - z * std_err)
    else:
        lower, upper = auc + z * std_err, auc - z * std_err
    bound = tf.logical_or(tf.equal(auc, tf.ones_like(auc)), tf.equal(auc, tf.zeros_like(auc)))
    lower, upper = v1.where(bound, auc, lower), v1.where(bound, auc, upper)
    trivial = tf.constant(0.0)
    return AucData(*v1.cond(is_valid, lambda: [auc, lower, upper], lambda: [trivial] * 3))


def auc_with_confidence_intervals(labels, predictions, weights=None, alpha=0.95,
                                  logit_transformation=True, metrics_collections=(),
                                  updates_collections=(), name=None):  # fmt: skip
    """AucData(auc, lower, upper): the ROC AUC of every example so far and its
    ``alpha`` interval. Whether it is valid (both classes, weights summing to 1
    or more) is judged on the current batch, as TF 1.15 judged it."""
    if not (alpha > 0 and alpha < 1):
        raise ValueError(f"alpha must be between 0 and 1; currently {alpha:.02f}")
    if weights is None:
        weights = tf.ones_like(predictions)
    scope = "auc_with_confidence_intervals"
    with v1.variable_scope(name, default_name=scope, values=[labels, predictions, weights]):
        predictions, labels, weights = metrics_impl._remove_squeezable_dimensions(
            predictions=predictions, labels=labels, weights=weights
        )
        total_weight = tf.reduce_sum(weights)
        weights = tf.reshape(weights, [-1])
        predictions, labels = _flat(predictions, labels)
        with _binary_labels_checked(labels):
            kept_predictions, kept_labels, updates = _kept(predictions, labels)
            kept_weights, update_weights = streaming_concat(weights, name="concat_weights")
            valid_update = tf.group(*updates, update_weights)
            both_classes = tf.logical_and(
                tf.equal(tf.reduce_min(labels), 0), tf.equal(tf.reduce_max(labels), 1)
            )
            weighty = tf.greater_equal(total_weight, 1.0)
            is_valid = tf.logical_and(both_classes, weighty)
            update = v1.cond(weighty, lambda: valid_update, tf.no_op)
            auc = _placement_auc(kept_labels, kept_predictions, kept_weights, alpha,
                                 logit_transformation, is_valid)  # fmt: skip
            return _reported(auc, update, metrics_collections, updates_collections)


def auc_using_histogram(boolean_labels, scores, score_range, nbins=100, collections=None,
                        check_shape=True, name=None):  # fmt: skip
    """The AUC of the histograms so far of each class's scores (``nbins`` bins
    over ``score_range``, scores outside it clipped): O(batch + nbins)."""
    del check_shape  # TF 1.15 checked nothing with it (_labels_and_scores)
    collections = [v1.GraphKeys.LOCAL_VARIABLES] if collections is None else collections
    scope = "auc_using_histogram"
    with v1.variable_scope(name, scope, [boolean_labels, scores, score_range]):
        boolean_labels, scores = confusion_ops.remove_squeezable_dimensions(boolean_labels, scores)
        score_range = tf.convert_to_tensor(score_range, name="score_range")
        boolean_labels, scores = _labels_and_scores(boolean_labels, scores)
        with v1.variable_scope(None, "make_auc_histograms", [boolean_labels, scores, nbins]):
            hist_true, hist_false = (
                tf.histogram_fixed_width(tf.boolean_mask(scores, mask), score_range, nbins=nbins,
                                         dtype=tf.int64, name=f"hist_{kind}")
                for kind, mask in (("true", boolean_labels),
                                   ("false", tf.logical_not(boolean_labels)))
            )  # fmt: skip
        with v1.variable_scope(None, "hist_accumulate", [hist_true, hist_false]):
            true_acc, false_acc = (
                v1.get_variable(f"hist_{kind}_acc", shape=[nbins], dtype=hist_true.dtype,
                                initializer=v1.zeros_initializer(), collections=collections,
                                trainable=False)
                for kind in ("true", "false")
            )  # fmt: skip
            update = tf.group(
                true_acc.assign_add(hist_true), false_acc.assign_add(hist_false), name="update_op"
            )
        return _histogram_auc(true_acc, false_acc, nbins), update


def _labels_and_scores(boolean_labels, scores):
    """Both as tensors, the labels bool. TF 1.15's ``check_shape`` built rank
    asserts that nothing ran (it returned the tensors made before them), so
    scores of any rank were taken, and are here."""
    with tf.name_scope("_check_labels_and_scores"):
        boolean_labels = tf.convert_to_tensor(boolean_labels, name="boolean_labels")
        scores = tf.convert_to_tensor(scores, name="scores")
        if boolean_labels.dtype != tf.bool:
            raise ValueError(
                f"Argument boolean_labels should have dtype bool.  Found: {boolean_labels.dtype}"
            )
        return boolean_labels, scores


def _histogram_auc(hist_true_acc, hist_false_acc, nbins: int):
    """The trapezoids between the normalised histograms' running sums (TF 1.15
    summed them by a convolution with ones: its numbers)."""
    normed_true = tf.math.truediv(hist_true_acc, tf.reduce_sum(hist_true_acc))
    normed_false = tf.math.truediv(hist_false_acc, tf.reduce_sum(hist_false_acc))
    delta_y = tf.cast(tf.reverse(normed_true, [0], name="delta_y_t"), tf.float32)
    delta_x = tf.cast(tf.reverse(normed_false, [0], name="delta_x_t"), tf.float32)
    y = _strict_1d_cumsum(delta_y, nbins)
    first = delta_x[0] * y[0] / 2.0
    others = delta_x[1:] * (y[1:] + y[: nbins - 1]) / 2.0
    return tf.add(first, tf.reduce_sum(others), name="auc")


def _strict_1d_cumsum(tensor, length: int):
    with tf.name_scope("strict_1d_cumsum"):
        if length == 0:
            return tf.constant([])
        x = tf.pad(tensor, [[length - 1, 0]])
        with tf.name_scope("strict_conv1d"):
            image = tf.reshape(x, (1, -1, 1, 1))
            ones = tf.reshape(tf.ones_like(x), (-1, 1, 1, 1))
            summed = tf.nn.conv2d(image, ones, [1, 1, 1, 1], "SAME")
            return tf.reshape(summed, [-1])[:length]
