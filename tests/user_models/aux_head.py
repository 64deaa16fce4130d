"""A user's TF1 model with an auxiliary head, as Inception v3 in tf-slim
returns it: ``(logits, end_points)`` with ``end_points['AuxLogits']``, and
the training loss of slim's ``train_image_classifier.py``: cross-entropy of
the logits plus 0.4 x that of the aux logits. Its TF2 twin returns the same
pair. Initial weights are the same arrays on both sides (seeded NumPy), so
the two entry points train the same numbers.
"""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
HIDDEN = 16
AUX_WEIGHT = 0.4


def _initial(shape, seed):
    return (np.random.RandomState(seed).randn(*shape) * 0.1).astype(np.float32)


def _shapes(pixels, num_classes):
    return {
        "hidden/w": ([pixels, HIDDEN], 1),
        "hidden/b": ([HIDDEN], 2),
        "out/w": ([HIDDEN, num_classes], 3),
        "out/b": ([num_classes], 4),
        "aux/w": ([pixels, num_classes], 5),
    }


def build(images, is_training, num_classes):
    """One hidden layer to the logits; the aux head reads the input."""
    del is_training
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    params = {
        name: v1.get_variable(name, initializer=_initial(shape, seed))
        for name, (shape, seed) in _shapes(int(x.shape[-1]), num_classes).items()
    }
    hidden = tf.nn.relu(tf.matmul(x, params["hidden/w"]) + params["hidden/b"])
    logits = tf.matmul(hidden, params["out/w"]) + params["out/b"]
    return logits, {"AuxLogits": tf.matmul(x, params["aux/w"]), "hidden": hidden}


def build_logits_only(images, is_training, num_classes):
    return build(images, is_training, num_classes)[0]


def loss_with_aux(labels, logits, end_points):
    """train_image_classifier's loss, per example (tf.nn: both paths)."""
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits
    aux = xent(labels=labels, logits=end_points["AuxLogits"])
    return xent(labels=labels, logits=logits) + AUX_WEIGHT * aux


def v1_loss_with_aux(labels, logits, end_points):
    """The same with tf.compat.v1.losses, as slim wrote it (TF1 path): both
    terms also land in the 'losses' collection."""
    onehot = tf.one_hot(labels, int(logits.shape[-1]))
    aux = v1.losses.softmax_cross_entropy(onehot, end_points["AuxLogits"], weights=AUX_WEIGHT)
    return v1.losses.softmax_cross_entropy(onehot, logits) + aux


class AuxHeadTwin(tf.Module):
    """The TF2 twin: the same variables by their TF1 names, the same pair."""

    def __init__(self, image_shape, num_classes):
        super().__init__()
        pixels = int(np.prod(image_shape))
        self.params = {
            name: tf.Variable(_initial(shape, seed), name=name)
            for name, (shape, seed) in _shapes(pixels, num_classes).items()
        }

    def __call__(self, images, training):
        p = self.params
        x = tf.reshape(images, [tf.shape(images)[0], -1])
        hidden = tf.nn.relu(tf.matmul(x, p["hidden/w"]) + p["hidden/b"])
        logits = tf.matmul(hidden, p["out/w"]) + p["out/b"]
        return logits, {"AuxLogits": tf.matmul(x, p["aux/w"]), "hidden": hidden}
