"""Eval metrics as an Estimator model_fn returned them (``eval_metric_ops``
in EVAL mode), for --eval_metrics; tests/test_eval_metrics.py drives them,
and the functions below the first are the mistakes users make."""

import tensorflow as tf

v1 = tf.compat.v1


def _count(labels):
    """The number of examples seen: a metric of one's own, on local variables."""
    total = v1.Variable(
        0, dtype=tf.int64, trainable=False, name="examples",
        collections=[v1.GraphKeys.LOCAL_VARIABLES, v1.GraphKeys.METRIC_VARIABLES],
    )  # fmt: skip
    return total.read_value(), v1.assign_add(total, tf.size(labels, out_type=tf.int64))


def metric_ops(labels, logits):
    predictions = tf.argmax(logits, axis=1)
    num_classes = logits.shape[-1]
    return {
        "accuracy": v1.metrics.accuracy(labels, predictions),
        "recall_at_3": v1.metrics.recall_at_k(tf.cast(labels, tf.int64), logits, k=3),
        "mean_per_class_accuracy": v1.metrics.mean_per_class_accuracy(
            labels, predictions, num_classes
        ),
        "examples": _count(labels),
    }


def not_a_dict(labels, logits):
    return v1.metrics.accuracy(labels, tf.argmax(logits, axis=1))


def not_a_pair(labels, logits):
    value, _ = v1.metrics.accuracy(labels, tf.argmax(logits, axis=1))
    return {"accuracy": value}


def not_a_scalar(labels, logits):
    frequencies = tf.reduce_mean(tf.one_hot(labels, logits.shape[-1]), axis=0)
    return {"class_frequencies": v1.metrics.mean_tensor(frequencies)}


def global_variable(labels, logits):
    total = v1.get_variable("examples", [], tf.int64, initializer=v1.zeros_initializer())
    return {
        "examples": (total.read_value(), v1.assign_add(total, tf.size(labels, out_type=tf.int64)))
    }


def raises(labels, logits):
    return {"auc": v1.metrics.auc(labels, logits)}  # labels vs a [batch, 10] "prediction"


def placeholder(labels, logits):
    threshold = v1.placeholder(tf.float32, [], name="threshold")
    return {"confident": v1.metrics.mean(tf.reduce_max(logits, axis=1) > threshold)}


def bert_metric_fn(per_example_loss, label_ids, logits, is_real_example):
    """BERT's run_classifier metric_fn as written there (TF1's tf.metrics),
    lifted out of its model_fn to module level."""
    predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
    accuracy = v1.metrics.accuracy(
        labels=label_ids, predictions=predictions, weights=is_real_example
    )
    loss = v1.metrics.mean(values=per_example_loss, weights=is_real_example)
    return {"eval_accuracy": accuracy, "eval_loss": loss}


def takes_weights(labels, logits, weights):
    """A third parameter tf1_train has nothing for."""
    return {"accuracy": v1.metrics.accuracy(labels, tf.argmax(logits, 1), weights=weights)}
