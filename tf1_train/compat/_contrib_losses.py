"""``tf.contrib.losses`` after install(): TF 1.0's losses, before ``tf.losses``.

Code from 2016-2017 wrote ``tf.contrib.losses.softmax_cross_entropy(logits,
onehot_labels)``: predictions or logits first (``tf.losses`` put the labels
first), and weights applied from the first dimension on, so weights of shape
``[batch]`` scale each example of a ``[batch, d]`` loss (``tf.losses``
broadcasts from the last dimension and refuses that shape). The mean is the
weighted sum over the number of elements with a non-zero weight. Each loss is
added to the LOSSES collection, as ``tf.losses``' are; ``hinge_loss`` returned
the unreduced losses and added nothing; ``mean_pairwise_squared_error``
counted its pairs otherwise than ``tf.losses``' later version. Written here
from those rules and held to TF 1.15.5's module (tests/test_compat_contrib_losses.py).
``metric_learning`` (triplet and lifted-structure losses) is not served.
"""

from __future__ import annotations

import tensorflow as tf

KEPT = ("absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
        "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss", "log_loss",
        "mean_pairwise_squared_error", "mean_squared_error", "sigmoid_cross_entropy",
        "softmax_cross_entropy", "sparse_softmax_cross_entropy")  # fmt: skip
v1 = tf.compat.v1


def _rank(x) -> int:
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{x.name}.get_shape().ndims cannot be None")
    return rank


def _count(losses, weights, per_batch=False):
    """How many elements of ``losses`` a weight that is not 0 covers (weights
    apply from the first dimension on, and spread over the rest)."""
    if _rank(weights) == 0:
        batch = tf.shape(losses)[0]
        each = tf.cast(tf.size(losses), tf.float32) / tf.cast(batch, tf.float32)
        each = tf.where(tf.equal(weights, 0), 0.0, each)
        counts = tf.ones(tf.reshape(batch, [1])) * each
    else:
        axis = list(range(1, _rank(weights)))
        nonzero = tf.reduce_sum(tf.cast(tf.not_equal(weights, 0), tf.float32), axis=axis)
        spread = tf.cast(tf.reduce_prod(tf.shape(losses)[_rank(weights) :]), tf.float32)
        counts = nonzero * spread
    return counts if per_batch else tf.reduce_sum(counts)


def _scaled(losses, weights):
    """The losses summed down to the weights' dimensions, weighted, and summed."""
    axis = list(range(max(0, _rank(weights)), _rank(losses)))
    return tf.reduce_sum(tf.reduce_sum(losses, axis=axis) * weights)


def add_loss(loss, loss_collection=v1.GraphKeys.LOSSES):
    if loss_collection:
        v1.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=v1.GraphKeys.LOSSES):
    return v1.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    losses = get_losses() + (get_regularization_losses() if add_regularization_losses else [])
    return tf.add_n(losses, name=name)


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The weighted sum over the number of elements with a weight that is not 0."""
    with tf.name_scope(scope or "weighted_loss"):
        losses = tf.convert_to_tensor(losses)
        dtype = losses.dtype
        losses = tf.cast(losses, tf.float32)
        weights = tf.cast(tf.convert_to_tensor(weights), tf.float32)
        _rank(losses)
        if _rank(weights) > 1 and weights.shape.dims[-1].is_compatible_with(1):
            weights = tf.squeeze(weights, [-1])
        total, count = _scaled(losses, weights), _count(losses, weights)
        mean = tf.cast(tf.math.divide_no_nan(total, count, name="value"), dtype)
        add_loss(mean)
        return mean


def _pair(predictions, labels):
    predictions.shape.assert_is_compatible_with(labels.shape)
    return tf.cast(predictions, tf.float32), tf.cast(labels, tf.float32)


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    with tf.name_scope(scope or "absolute_difference") as scope:
        predictions, labels = _pair(predictions, labels)
        return compute_weighted_loss(tf.abs(predictions - labels), weights, scope=scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    with tf.name_scope(scope or "mean_squared_error") as scope:
        predictions, labels = _pair(predictions, labels)
        return compute_weighted_loss(tf.square(predictions - labels), weights, scope=scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    with tf.name_scope(scope or "log_loss") as scope:
        p, y = _pair(predictions, labels)
        losses = -y * tf.math.log(p + epsilon) - (1 - y) * tf.math.log(1 - p + epsilon)
        return compute_weighted_loss(losses, weights, scope=scope)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):  # fmt: skip
    with tf.name_scope(scope or "sigmoid_cross_entropy_loss") as scope:
        logits.shape.assert_is_compatible_with(multi_class_labels.shape)
        labels = tf.cast(multi_class_labels, logits.dtype)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                         name="xentropy")  # fmt: skip
        return compute_weighted_loss(losses, weights, scope=scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    with tf.name_scope(scope or "softmax_cross_entropy_loss") as scope:
        logits.shape.assert_is_compatible_with(onehot_labels.shape)
        labels = tf.cast(onehot_labels, logits.dtype)
        if label_smoothing > 0:
            classes = tf.cast(tf.shape(labels)[1], logits.dtype)
            labels = labels * (1 - label_smoothing) + label_smoothing / classes
        losses = v1.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                         name="xentropy")  # fmt: skip
        return compute_weighted_loss(losses, weights, scope=scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    with tf.name_scope(scope or "sparse_softmax_cross_entropy_loss") as scope:
        labels = tf.reshape(labels, shape=[tf.shape(labels)[0]])
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                name="xentropy")  # fmt: skip
        return compute_weighted_loss(losses, weights, scope=scope)


def hinge_loss(logits, labels=None, scope=None):
    """The unreduced hinge losses of 0/1 labels (nothing added to LOSSES)."""
    with tf.name_scope(scope or "hinge_loss"):
        logits.shape.assert_is_compatible_with(labels.shape)
        signs = 2 * tf.cast(labels, tf.float32) - 1
        return tf.nn.relu(1 - signs * logits)


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with tf.name_scope(scope or "cosine_distance_loss") as scope:
        predictions, labels = _pair(predictions, labels)
        losses = 1 - tf.reduce_sum(predictions * labels, axis=[axis], keepdims=True)
        return compute_weighted_loss(losses, weights, scope=scope)


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """TF 1.0's: per example, 2 * mean(d^2) - 2 * mean(d)^2 over its present elements."""
    with tf.name_scope(scope or "mean_pairwise_squared_error"):
        predictions, labels = _pair(predictions, labels)
        weights = tf.cast(tf.convert_to_tensor(weights), tf.float32)
        diffs = predictions - labels
        axis = list(range(1, _rank(diffs)))
        _rank(weights)
        count = _count(diffs, weights, per_batch=True)
        term1 = 2.0 * tf.math.divide_no_nan(tf.reduce_sum(tf.square(diffs), axis=axis), count)
        term2 = 2.0 * tf.math.divide_no_nan(
            tf.square(tf.reduce_sum(diffs, axis=axis)), tf.square(count)
        )
        loss = _scaled(term1 - term2, weights)
        mean = tf.where(tf.reduce_sum(count) > 0, loss, tf.zeros_like(loss), name="value")
        add_loss(mean)
        return mean


def resolve(name: str):
    """``tf.contrib.losses.<name>`` after install()."""
    return globals()[name]
