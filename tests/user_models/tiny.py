"""A user's own TF1 model, written outside tf1_train the way a porter would:
plain ``tf.compat.v1`` with ``get_variable``, nothing imported from tf1_train."""

import tensorflow as tf

v1 = tf.compat.v1

NOT_CALLABLE = 42
HIDDEN = 32  # units of the hidden layer


def build(images, is_training, num_classes):
    """One hidden layer; variables named as a TF1 code base would name them."""
    del is_training
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    with v1.variable_scope("hidden"):
        w = v1.get_variable(
            "w", [int(x.shape[-1]), HIDDEN], initializer=v1.glorot_uniform_initializer(seed=1)
        )
        b = v1.get_variable("b", [HIDDEN], initializer=v1.zeros_initializer())
        x = tf.nn.relu(tf.matmul(x, w) + b)
    with v1.variable_scope("out"):
        w = v1.get_variable(
            "w", [HIDDEN, num_classes], initializer=v1.glorot_uniform_initializer(seed=2)
        )
        b = v1.get_variable("b", [num_classes], initializer=v1.zeros_initializer())
        return tf.matmul(x, w) + b
