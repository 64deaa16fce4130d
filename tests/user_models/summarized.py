"""A user's TF1 model that writes its own TensorBoard summaries, as the
CIFAR-10 tutorial's ``_activation_summary`` did: a histogram of a layer's
activations and the fraction of them that are zero."""

import tensorflow as tf

v1 = tf.compat.v1
UNITS = 12


def build(images, is_training, num_classes):
    del is_training
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    with v1.variable_scope("hidden"):
        w = v1.get_variable("w", [int(x.shape[-1]), UNITS])
        b = v1.get_variable("b", [UNITS], initializer=v1.zeros_initializer())
        x = tf.nn.relu(tf.matmul(x, w) + b)
        v1.summary.histogram("activations", x)
        v1.summary.scalar("sparsity", tf.nn.zero_fraction(x))
    with v1.variable_scope("out"):
        w = v1.get_variable("w", [UNITS, num_classes])
        return tf.matmul(x, w)
