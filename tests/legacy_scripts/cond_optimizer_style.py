"""A legacy TF1 program that applies Adam inside a ``tf.cond`` branch (a
skip on an overflowing gradient, as NVIDIA's OpenSeq2Seq wrote it) and
wraps a second Adam in TensorFlow's loss-scale optimizer
(``enable_mixed_precision_graph_rewrite``, as DeepSpeech's
``--automatic_mixed_precision`` did). Both make Adam's own variables
inside a cond: TF 1.x named them after it. Not changed for TensorFlow 2:
tests run it through ``python -m tf1_train.compat --v1``, with and without
``--v1_control_flow``.

Prints ``variable = <name>`` for each global variable.
"""

import tensorflow as tf


def main():
    w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    opt = tf.train.AdamOptimizer(0.1)
    grads = opt.compute_gradients(tf.reduce_sum(w * w))
    finite = tf.reduce_all([tf.reduce_all(tf.is_finite(g)) for g, _ in grads])
    tf.cond(finite, lambda: opt.apply_gradients(grads), tf.no_op)
    with tf.variable_scope("amp"):
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        amp = tf.train.experimental.enable_mixed_precision_graph_rewrite(
            tf.train.AdamOptimizer(0.1)
        )
        amp.minimize(tf.reduce_sum(v * v))
    for variable in tf.global_variables():
        print(f"variable = {variable.op.name}")


if __name__ == "__main__":
    main()
