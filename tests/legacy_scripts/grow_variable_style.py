"""A TF 1.x streaming metric that grows a variable batch by batch, as
SSD-Tensorflow's ``tf_extended/metrics.py`` keeps every detection's score
for its mAP: ``tf.assign(v, tf.concat([v, scores], 0), validate_shape=False)``
on a variable made with shape [0]. Not changed for TensorFlow 2: tests run
it through ``python -m tf1_train.compat --v1``, with and without
``--v1_variables``.

Prints ``grown`` (the variable after two batches) or ``error`` (the
exception's type).
"""

import tensorflow as tf


def main():
    scores = tf.placeholder(tf.float32, [None])
    kept = tf.Variable(
        tf.zeros([0]), trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="kept"
    )
    update = tf.assign(kept, tf.concat([kept, scores], axis=0), validate_shape=False)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        try:
            sess.run(update, {scores: [0.5, 0.25]})
            grown = sess.run(update, {scores: [0.75]})
            print("grown = " + " ".join(str(x) for x in grown))
        except tf.errors.OpError as e:
            print("error = " + type(e).__name__)


if __name__ == "__main__":
    main()
