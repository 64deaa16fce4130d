"""Programs over ``tf.contrib.metrics``, run on TensorFlow 1.15.5 itself by
scripts/make_contrib_opt_goldens.py (Python 3.7: no newer syntax here) and
on tf1_train.compat by tests/test_compat_contrib_metrics.py, which holds the
second to the first.

A case is ``fn(metrics, tf) -> {name: array}``: ``metrics`` is the module
``tensorflow.contrib.metrics``, ``tf`` the v1 API. The streaming cases feed
three fixed batches and keep what each update op returned and each value
after it; every call passes its tensors by position, as TF1 code did
(``streaming_auc(predictions, labels)``: the order that differs from
``tf.metrics``).
"""

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


_RNG = np.random.RandomState(7)
BATCHES = {
    "probs": _RNG.uniform(0, 1, (3, 12)).astype(np.float32),
    "binary": _RNG.uniform(0, 1, (3, 12)) > 0.5,
    "weights": _RNG.uniform(0.5, 2, (3, 12)).astype(np.float32),
    "values": _RNG.normal(0, 1, (3, 12)).astype(np.float32),
    "noise": _RNG.normal(0, 0.5, (3, 12)).astype(np.float32),
    "logits": _RNG.normal(0, 1, (3, 6, 5)).astype(np.float32),
    "ids": _RNG.randint(0, 5, (3, 6)).astype(np.int64),
}


def _stream(tf, build, update_outputs=True):
    """``build(inputs) -> {name: (value, update_op)}``, over the three batches
    (without ``update_outputs``, the values only: the update ops are groups)."""
    graph = tf.Graph()
    with graph.as_default():
        inputs = {k: tf.placeholder(tf.as_dtype(v.dtype), v.shape[1:]) for k, v in BATCHES.items()}
        metrics = build(inputs)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.local_variables_initializer())
            out = {}
            for b in range(3):
                feed = {inputs[k]: v[b] for k, v in BATCHES.items()}
                updates = sess.run({k: u for k, (_, u) in metrics.items()}, feed)
                # fed: streaming_dynamic_auc's and auc_with_confidence_intervals'
                # values read the batch's labels (checks, validity), as in TF 1.15
                values = sess.run({k: v for k, (v, _) in metrics.items()}, feed)
                for k in metrics:
                    if update_outputs:
                        out.setdefault("update/" + k, []).append(updates[k])
                    out.setdefault("value/" + k, []).append(values[k])
            names = sorted(v.op.name for v in tf.local_variables())
    arrays = {k: np.array(v) for k, v in out.items()}
    arrays["local_variables"] = np.array(names)
    return arrays


@case
def binary_classification(m, tf):
    def build(x):
        p, y, w = x["probs"] > 0.5, x["binary"], x["weights"]
        return {
            "accuracy": m.streaming_accuracy(p, y),
            "accuracy_w": m.streaming_accuracy(p, y, w),
            "precision": m.streaming_precision(p, y),
            "recall": m.streaming_recall(p, y, w),
            "tp": m.streaming_true_positives(p, y),
            "tn": m.streaming_true_negatives(p, y, w),
            "fp": m.streaming_false_positives(p, y),
            "fn": m.streaming_false_negatives(p, y),
            "fpr": m.streaming_false_positive_rate(p, y),
            "fnr": m.streaming_false_negative_rate(p, y, w),
            "auc": m.streaming_auc(x["probs"], y),
            "auc_pr": m.streaming_auc(x["probs"], y, w, 50, None, None, "PR"),
            "spec_at_sens": m.streaming_specificity_at_sensitivity(x["probs"], y, 0.6),
            "sens_at_spec": m.streaming_sensitivity_at_specificity(x["probs"], y, 0.4, w),
            "precision_at": m.streaming_precision_at_thresholds(x["probs"], y, [0.3, 0.7]),
            "recall_at": m.streaming_recall_at_thresholds(x["probs"], y, [0.3, 0.7], w),
            "f1": m.f1_score(y, x["probs"]),  # labels first
            "f1_w": m.f1_score(y, x["probs"], w, 50),
        }

    return _stream(tf, build)


@case
def at_thresholds(m, tf):
    def build(x):
        p, y, w, t = x["probs"], x["binary"], x["weights"], [0.2, 0.5, 0.8]
        return {
            "tp": m.streaming_true_positives_at_thresholds(p, y, t),
            "fn": m.streaming_false_negatives_at_thresholds(p, y, t, w),
            "fp": m.streaming_false_positives_at_thresholds(p, y, t),
            "tn": m.streaming_true_negatives_at_thresholds(p, y, t, w),
            "fpr": m.streaming_false_positive_rate_at_thresholds(p, y, t),
            "fnr": m.streaming_false_negative_rate_at_thresholds(p, y, t, w),
        }

    return _stream(tf, build)


@case
def regression(m, tf):
    def build(x):
        v, w = x["values"], x["weights"]
        t = v + x["noise"]
        return {
            "mean": m.streaming_mean(v),
            "mean_w": m.streaming_mean(v, w),
            "mean_tensor": m.streaming_mean_tensor(v),
            "mae": m.streaming_mean_absolute_error(v, t),
            "mse": m.streaming_mean_squared_error(v, t, w),
            "rmse": m.streaming_root_mean_squared_error(v, t),
            "relative": m.streaming_mean_relative_error(v, t, tf.abs(t) + 1.0),
            "less": m.streaming_percentage_less(v, 0.2),
            "covariance": m.streaming_covariance(v, t),
            "covariance_w": m.streaming_covariance(v, t, w),
            "pearson": m.streaming_pearson_correlation(v, t),
            "pearson_w": m.streaming_pearson_correlation(v, t, w),
            "count": m.count(v),
            "count_w": m.count(v, w),
        }

    return _stream(tf, build)


@case
def classes(m, tf):
    def build(x):
        logits, ids = x["logits"], x["ids"]
        top = tf.nn.top_k(logits, 3).indices
        return {
            "mean_iou": m.streaming_mean_iou(tf.argmax(logits, 1), ids, 5),
            "recall_at_2": m.streaming_recall_at_k(logits, ids, 2),
            "sparse_recall_at_2": m.streaming_sparse_recall_at_k(logits, ids, 2),
            "sparse_recall_class_1": m.streaming_sparse_recall_at_k(logits, ids, 2, 1),
            "sparse_precision_at_2": m.streaming_sparse_precision_at_k(logits, ids, 2),
            "average_precision_at_3": m.streaming_sparse_average_precision_at_k(logits, ids, 3),
            "average_precision_top_3": m.streaming_sparse_average_precision_at_top_k(
                tf.cast(top, tf.int64), ids
            ),
        }

    return _stream(tf, build)


@case
def agreement_and_top_k(m, tf):
    """The top-k precision (predictions first) and recall (labels first),
    Cohen's kappa on int and float weights, the cosine distance of unit rows."""

    def build(x):
        logits, ids = x["logits"], x["ids"]
        top = tf.cast(tf.nn.top_k(logits, 3).indices, tf.int64)
        predicted = tf.argmax(logits, 1)
        w6 = x["weights"][:6]
        rows = tf.nn.l2_normalize(tf.reshape(x["values"], [4, 3]), 1)
        near = tf.nn.l2_normalize(tf.reshape(x["values"] + x["noise"], [4, 3]), 1)
        return {
            "precision_top_3": m.streaming_sparse_precision_at_top_k(top, ids),
            "precision_top_3_class_2": m.streaming_sparse_precision_at_top_k(top, ids, 2),
            "recall_top_3": m.sparse_recall_at_top_k(ids, top),
            "recall_top_3_w": m.sparse_recall_at_top_k(ids, top, None, w6),
            "kappa": m.cohen_kappa(ids, predicted, 5),
            "kappa_w": m.cohen_kappa(tf.expand_dims(ids, 1), predicted, 5, w6),
            "kappa_int_w": m.cohen_kappa(ids, predicted, 5, tf.cast(w6 * 2, tf.int64)),
            "cosine": m.streaming_mean_cosine_distance(rows, near, 1),
            "cosine_w": m.streaming_mean_cosine_distance(
                rows, near, 1, tf.reshape(x["weights"][:4], [4, 1])
            ),
        }

    return _stream(tf, build)


@case
def read_off_curves(m, tf):
    """The recall at a precision (closest, strict, nowhere reached) and the
    precision at a recall (labels first, as tf.metrics)."""

    def build(x):
        p, y, w = x["probs"], x["binary"], x["weights"]
        return {
            "recall_at_p": m.recall_at_precision(y, p, 0.6),
            "recall_at_p_strict_w": m.recall_at_precision(y, p, 0.7, w, 50, None, None, None, True),
            "recall_at_p_unreached": m.recall_at_precision(y, p, 1.0, strict_mode=True),
            "precision_at_r": m.precision_at_recall(y, p, 0.5),
            "precision_at_r_w": m.precision_at_recall(y, p, 0.8, w, 30),
        }

    return _stream(tf, build)


@case
def curves_and_auc(m, tf):
    """Curve points, PR data at equal thresholds, and the AUCs that keep
    every prediction (ties too) or histograms of them: their values."""

    def build(x):
        p, y, w = x["probs"], x["binary"], x["weights"]
        tied = tf.round(p * 4.0) / 4.0
        return {
            "roc_points": m.streaming_curve_points(y, p, None, 5),
            "pr_points_w": m.streaming_curve_points(y, p, w, 7, None, None, "PR"),
            "pr_data": m.precision_recall_at_equal_thresholds(y, p, None, 11),
            "pr_data_w": m.precision_recall_at_equal_thresholds(y, tied, w),
            "dynamic_roc": m.streaming_dynamic_auc(y, tied),
            "dynamic_pr_w": m.streaming_dynamic_auc(y, p, "PR", weights=w),
            "auc_ci": m.auc_with_confidence_intervals(y, p),
            "auc_ci_w_linear": m.auc_with_confidence_intervals(y, tied, w, 0.9, False),
            "auc_histogram": m.auc_using_histogram(y, p, [0.0, 1.0], 10),
            "auc_histogram_clipped": m.auc_using_histogram(y, x["values"], [-1.0, 1.0], 8),
        }

    return _stream(tf, build, update_outputs=False)


@case
def one_batch(m, tf):
    """The functions without state: accuracy, confusion_matrix, the set ops."""
    graph = tf.Graph()
    with graph.as_default():
        p = tf.constant([1, 2, 2, 0, 4, 3])
        y = tf.constant([1, 2, 0, 0, 3, 3])
        w = tf.constant([1.0, 0.5, 2.0, 1.0, 1.5, 0.25])
        a = tf.constant([[1, 2, 3, 0], [4, 5, 4, 4]])
        b = tf.constant([[2, 3, 7, 0], [6, 4, 9, 1]])
        sets = [m.set_intersection(a, b), m.set_union(a, b), m.set_difference(a, b)]
        out = {
            "accuracy": m.accuracy(p, y),
            "accuracy_w": m.accuracy(p, y, w),
            "confusion": m.confusion_matrix(y, p),
            "confusion_w": m.confusion_matrix(y, p, 6, tf.float32, None, w),
            "set_size": m.set_size(m.set_union(a, b)),
        }
        for name, s in zip(("intersection", "union", "difference"), sets):
            out[name] = tf.sparse_tensor_to_dense(s, default_value=-1)
        with tf.Session(graph=graph) as sess:
            return {k: np.asarray(v) for k, v in sess.run(out).items()}


@case
def concat(m, tf):
    """streaming_concat along each axis and with max_size: each update's
    output (the size) and the value after it, batch by batch."""
    graph = tf.Graph()
    with graph.as_default():
        rows = tf.placeholder(tf.float32, [None, 3])
        ids = tf.placeholder(tf.int64, [None])
        metrics = {
            "rows": m.streaming_concat(rows),
            "columns": m.streaming_concat(tf.transpose(rows), axis=-1),
            "capped": m.streaming_concat(ids, 0, 7),
        }
        with tf.Session(graph=graph) as sess:
            sess.run(tf.local_variables_initializer())
            out = {}
            for b, n in enumerate((4, 2, 3)):
                feed = {
                    rows: BATCHES["values"][b, : 3 * n].reshape(n, 3),
                    ids: BATCHES["ids"][b, :n],
                }
                updates = sess.run({k: u for k, (_, u) in metrics.items()}, feed)
                values = sess.run({k: v for k, (v, _) in metrics.items()})
                for k in metrics:
                    out[f"update/{k}/{b}"] = np.asarray(updates[k])
                    out[f"value/{k}/{b}"] = values[k]
            out["local_variables"] = np.array(sorted(v.op.name for v in tf.local_variables()))
    return out
