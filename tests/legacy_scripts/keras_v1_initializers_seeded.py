"""A TF 1.x program that seeds its graph and builds its weights with
``tf.compat.v1.keras.initializers`` (Mozilla's DeepSpeech, train.py): run
under ``--v1 --v1_seeds --v1_variables`` it prints the first row of each
weight, which TF 1.15.5 printed too (tests/test_compat_keras_v1_initializers.py)."""

import tensorflow as tf

inits = tf.compat.v1.keras.initializers
tf.compat.v1.set_random_seed(4568)
made = [
    ("w", inits.VarianceScaling(scale=1.0, mode="fan_avg", distribution="uniform")),
    ("g", inits.glorot_uniform()),
    ("h", inits.he_normal()),
    ("u", inits.RandomUniform()),
    ("n", inits.RandomNormal()),
    ("t", tf.keras.initializers.TruncatedNormal()),
]
variables = [tf.compat.v1.get_variable(name, [3, 4], initializer=init) for name, init in made]
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for (name, _), value in zip(made, sess.run(variables)):
        print(name, " ".join(f"{x:.6f}" for x in value[0]))
