"""A user's capsule network (Sabour, Frosst and Hinton 2017), small enough for
8x8 digits, written as TF1 code bases wrote theirs: convolutions, primary
capsules, dynamic routing between capsules (three iterations, the first two
without gradient), capsule lengths as the class scores, and a decoder that
reconstructs the image from the *true* class's capsule. So the model needs
the labels in its forward pass: ``build(..., labels=None)``; without labels
(an exported model) it masks with the predicted class instead.

The loss is the paper's margin loss plus 0.0005 x the summed squared
reconstruction error (0.392 x the mean over 784 pixels, as TF1 ports wrote
it), given the reconstruction through the end points. The TF2 twin has the
same variables, initial values (seeded NumPy) and pair.
"""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
EPSILON = 1e-9
PRIMARY_CAPS, PRIMARY_DIM, DIGIT_DIM, ITERATIONS = 4, 4, 8, 3
CONV1, HIDDEN = 16, 32
M_PLUS, M_MINUS, DOWN_WEIGHT, RECONSTRUCTION = 0.9, 0.1, 0.5, 0.392


def _initial(shape, seed, scale=0.1):
    return (np.random.RandomState(seed).randn(*shape) * scale).astype(np.float32)


def _shapes(image_shape, num_classes):
    h, w, c = image_shape
    primary = ((h - 2 - 3) // 2 + 1) * ((w - 2 - 3) // 2 + 1) * PRIMARY_CAPS
    return {
        "conv1/weights": ([3, 3, c, CONV1], 1),
        "conv1/biases": ([CONV1], 2),
        "primary/weights": ([3, 3, CONV1, PRIMARY_CAPS * PRIMARY_DIM], 3),
        "primary/biases": ([PRIMARY_CAPS * PRIMARY_DIM], 4),
        "digit/weights": ([primary, num_classes, PRIMARY_DIM, DIGIT_DIM], 5),
        "decoder/fc1/weights": ([num_classes * DIGIT_DIM, HIDDEN], 6),
        "decoder/fc1/biases": ([HIDDEN], 7),
        "decoder/fc2/weights": ([HIDDEN, h * w * c], 8),
        "decoder/fc2/biases": ([h * w * c], 9),
    }


def _squash(s):
    """Eq. 1: short vectors shrink to almost zero, long ones to below one."""
    squared = tf.reduce_sum(tf.square(s), -1, keepdims=True)
    return s * (squared / (1.0 + squared) / tf.sqrt(squared + EPSILON))


def _routing(u_hat, iterations):
    """Dynamic routing; the inner iterations see u_hat without its gradient."""
    stopped = tf.stop_gradient(u_hat)
    logits = tf.zeros_like(u_hat[..., 0])  # [batch, primary, classes]
    for r in range(iterations):
        coupling = tf.nn.softmax(logits, axis=2)
        last = r == iterations - 1
        votes = u_hat if last else stopped
        v = _squash(tf.reduce_sum(coupling[..., None] * votes, axis=1))  # [batch, classes, dim]
        if not last:
            logits += tf.reduce_sum(stopped * v[:, None], axis=-1)
    return v


def forward(p, images, num_classes, labels):
    """Both sides' forward pass over the variables ``p`` (by TF1 name)."""
    conv = tf.nn.conv2d(images, p["conv1/weights"], 1, "VALID") + p["conv1/biases"]
    conv = tf.nn.relu(conv)
    primary = tf.nn.conv2d(conv, p["primary/weights"], 2, "VALID") + p["primary/biases"]
    u = _squash(tf.reshape(primary, [tf.shape(images)[0], -1, PRIMARY_DIM]))
    u_hat = tf.einsum("bik,ijkd->bijd", u, p["digit/weights"])
    v = _routing(u_hat, ITERATIONS)
    lengths = tf.sqrt(tf.reduce_sum(tf.square(v), -1) + EPSILON)
    chosen = labels if labels is not None else tf.argmax(lengths, axis=1, output_type=tf.int32)
    mask = tf.one_hot(chosen, num_classes, dtype=v.dtype)
    masked = tf.reshape(v * mask[..., None], [-1, num_classes * DIGIT_DIM])
    hidden = tf.nn.relu(tf.matmul(masked, p["decoder/fc1/weights"]) + p["decoder/fc1/biases"])
    decoded = tf.sigmoid(tf.matmul(hidden, p["decoder/fc2/weights"]) + p["decoder/fc2/biases"])
    flat = tf.reshape(images, tf.shape(decoded))
    return lengths, {"reconstruction": decoded, "images": flat}


def build(images, is_training, num_classes, labels=None):
    """The TF1 model function: get_variable, so the towers share them."""
    del is_training
    shapes = _shapes(images.shape[1:].as_list(), num_classes)
    p = {n: v1.get_variable(n, initializer=_initial(s, seed)) for n, (s, seed) in shapes.items()}
    return forward(p, images, num_classes, labels)


def margin_loss(labels, logits, end_points):
    """Per example: the margin loss of the capsule lengths plus the scaled
    mean squared reconstruction error (tf.nn and tf.math: both paths)."""
    present = tf.one_hot(labels, int(logits.shape[-1]))
    high = tf.square(tf.nn.relu(M_PLUS - logits))
    low = tf.square(tf.nn.relu(logits - M_MINUS))
    margin = tf.reduce_sum(present * high + DOWN_WEIGHT * (1.0 - present) * low, axis=1)
    error = tf.square(end_points["reconstruction"] - end_points["images"])
    return margin + RECONSTRUCTION * tf.reduce_mean(error, axis=1)


class CapsulesTwin(tf.Module):
    """The TF2 twin: the same variables by their TF1 names, called with the
    replica's labels (``labels=None``: the predicted class masks)."""

    def __init__(self, image_shape, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.params = {
            n: tf.Variable(_initial(s, seed), name=n)
            for n, (s, seed) in _shapes(list(image_shape), num_classes).items()
        }

    def __call__(self, images, training, labels=None):
        del training
        read = {n: tf.cast(v, images.dtype) for n, v in self.params.items()}  # --precision
        return forward(read, images, self.num_classes, labels)
