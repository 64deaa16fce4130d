"""A user's TF1 model with its own losses, written as TF1 code bases did:
a ``regularizer=`` on ``get_variable`` (REGULARIZATION_LOSSES) and the CIFAR-10
tutorial's ``tf.add_to_collection('losses', ...)``."""

import tensorflow as tf

v1 = tf.compat.v1

REG_SCALE = 0.01  # REGULARIZATION_LOSSES term: REG_SCALE * sum(w**2)
DECAY = 0.002  # 'losses' term: DECAY * l2_loss(w) = DECAY * sum(w**2) / 2


def build(images, is_training, num_classes):
    """Logits of a linear model; ``w`` carries both kinds of term."""
    del is_training
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    w = v1.get_variable(
        "linear/w",
        [int(x.shape[-1]), num_classes],
        initializer=v1.random_normal_initializer(stddev=0.3, seed=5),
        regularizer=lambda t: REG_SCALE * tf.reduce_sum(tf.square(t)),
    )
    b = v1.get_variable("linear/b", [num_classes], initializer=v1.zeros_initializer())
    v1.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(w), DECAY, name="weight_loss"))
    return tf.matmul(x, w) + b


def mean_squared_error(labels, logits):
    """A data loss of one's own, per example (--loss)."""
    onehot = tf.one_hot(labels, int(logits.shape[-1]))
    return tf.reduce_mean(tf.square(tf.nn.softmax(logits) - onehot), axis=1)


def v1_cross_entropy(labels, logits):
    """The TF1 idiom: tf.losses.* put the loss in the 'losses' collection too."""
    return v1.losses.sparse_softmax_cross_entropy(labels, logits)


def with_regularization(labels, logits):
    """A TF1 model_fn's total loss, which tf1_train would count twice."""
    xent = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    return xent + v1.losses.get_regularization_loss()


def total_loss(labels, logits):
    """The other TF1 idiom: get_total_loss() sums both collections."""
    v1.losses.sparse_softmax_cross_entropy(labels, logits)
    return v1.losses.get_total_loss()


def _scoped_l2(t):
    """As tf-slim's and contrib's l2_regularizer: ops in a name scope of its own."""
    with tf.name_scope("l2_regularizer"):
        return REG_SCALE * tf.reduce_sum(tf.square(t))


def build_scoped(images, is_training, num_classes):
    """build() with the kernel's regularizer in a name scope of its own."""
    del is_training
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    w = v1.get_variable("linear/w", [int(x.shape[-1]), num_classes], regularizer=_scoped_l2)
    return tf.matmul(x, w)
