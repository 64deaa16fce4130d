"""What ``tf.contrib.losses`` computed: run with TF 1.15.5's own module
(scripts/make_contrib_losses_goldens.py writes tests/goldens/contrib_losses_tf115.json)
and with the one tf1_train.compat.install() serves (tests/test_compat_contrib_losses.py).
Each case builds in the graph the caller made default; Python 3.7 runs it too.
"""

import numpy as np


def outcomes(tf):
    """name -> a value or list; ``tf``: the v1 API, graph mode on."""
    losses = tf.contrib.losses
    rng = np.random.RandomState(0)
    p = tf.constant(rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32))
    y = tf.constant((rng.uniform(size=(4, 3)) > 0.5).astype(np.float32))
    logits = tf.constant(rng.normal(size=(4, 3)).astype(np.float32))
    onehot = tf.one_hot([0, 2, 1, 2], 3)
    per_example = tf.constant([1.0, 0.0, 2.0, 0.5])  # [batch]: TF 1.0's first-dimension weights
    full = tf.constant(rng.uniform(size=(4, 3)).astype(np.float32))
    weights = {"scalar": 2.0, "batch": per_example, "column": tf.reshape(per_example, [4, 1]),
               "full": full, "zero": 0.0}  # fmt: skip
    fetches = {}
    for kind, w in sorted(weights.items()):
        fetches["absolute_difference_" + kind] = losses.absolute_difference(p, y, w)
        fetches["mean_squared_error_" + kind] = losses.mean_squared_error(p, y, w)
        fetches["log_loss_" + kind] = losses.log_loss(p, y, w)
        fetches["sigmoid_" + kind] = losses.sigmoid_cross_entropy(logits, y, w, 0.1)
        if kind != "full":  # one weight per example at most (TF 1.15.5 raises otherwise)
            fetches["pairwise_" + kind] = losses.mean_pairwise_squared_error(p, y, w)
        fetches["weighted_" + kind] = losses.compute_weighted_loss(p * 3.0, w)
    for kind in ("scalar", "batch", "zero"):
        w = weights[kind]
        fetches["softmax_" + kind] = losses.softmax_cross_entropy(logits, onehot, w, 0.2)
        fetches["sparse_" + kind] = losses.sparse_softmax_cross_entropy(logits, [0, 2, 1, 2], w)
    unit_p, unit_y = tf.nn.l2_normalize(p, 1), tf.nn.l2_normalize(y + 0.1, 1)
    fetches["cosine"] = losses.cosine_distance(unit_p, unit_y, dim=1, weights=per_example)
    fetches["hinge"] = losses.hinge_loss(logits, y)
    counted = len(losses.get_losses())  # hinge_loss adds none
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(0.25))
    fetches["total"] = losses.get_total_loss()
    fetches["total_without_regularization"] = losses.get_total_loss(False)
    with tf.Session() as sess:
        found = sess.run(fetches)
    found = {k: np.asarray(v).tolist() for k, v in found.items()}
    found["losses_collected"] = counted
    found["regularization_losses"] = len(losses.get_regularization_losses())
    return found
