"""A legacy TF1 program that seeds only its graph, as most did
(``tf.set_random_seed(123)``, GraphSAGE's trainers), and draws with an op
of no seed of its own, beside the same draw given the seed TF 1.x derived
for it (the number of ops built before it: 8 here). Not changed for
TensorFlow 2: tests run it through ``python -m tf1_train.compat --v1``.

Prints ``unseeded`` and ``seeded`` (the two shuffles of 0..7).
"""

import tensorflow as tf


def main():
    tf.set_random_seed(123)
    tf.Variable(tf.zeros([3]))
    unseeded = tf.random_shuffle(tf.range(8))
    seeded = tf.random_shuffle(tf.range(8), seed=8)
    with tf.Session() as sess:
        first, second = sess.run([unseeded, seeded])
    print("unseeded = " + " ".join(str(i) for i in first))
    print("seeded = " + " ".join(str(i) for i in second))


if __name__ == "__main__":
    main()
