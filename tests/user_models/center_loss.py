"""A user's model with a center loss (Wen et al. 2016) as face-recognition
code bases of the TF1 era trained it (facenet's train_softmax.py): an
embedding, softmax logits, and a penalty pulling each example's embedding
towards its class's center. The centers are a non-trainable variable that
the forward pass itself moves (``scatter_sub`` by the labels, under the
penalty's control dependencies), so the model takes the labels.
"""

import tensorflow as tf

v1 = tf.compat.v1
EMBEDDING, CENTER_DECAY, CENTER_WEIGHT = 16, 0.95, 0.01


def build(images, is_training, num_classes, labels=None):
    pixels = int(images.shape[1:].num_elements())
    flat = tf.reshape(images, [-1, pixels])
    embedding = tf.matmul(flat, v1.get_variable("embedding/w", [pixels, EMBEDDING]))
    logits = tf.matmul(embedding, v1.get_variable("logits/w", [EMBEDDING, num_classes]))
    if is_training and labels is not None:
        penalty = _center_penalty(embedding, labels, num_classes)
        v1.add_to_collection("losses", CENTER_WEIGHT * penalty)
    return logits


def _center_penalty(embedding, labels, num_classes):
    """Mean squared distance to the class centers read before this step's
    move; the move (a (1 - decay) step towards the batch) runs first."""
    centers = v1.get_variable(
        "centers", [num_classes, EMBEDDING], initializer=tf.zeros_initializer(), trainable=False
    )
    mine = tf.gather(centers, labels)
    moved = v1.scatter_sub(centers, labels, (1.0 - CENTER_DECAY) * (mine - embedding))
    with tf.control_dependencies([moved]):
        return tf.reduce_mean(tf.square(embedding - mine))
