"""A legacy TF1 training program configured the way Tacotron, Magenta and
the NMT forks were: a module-level ``tf.contrib.training.HParams``,
overridden by ``--hparams="name=value,list=[a,b]"``, logged with a
``hparams_debug_string()``, written next to the checkpoint as JSON and read
back with ``parse_json`` when training resumes there. The model is
``tf.layers.dense`` layers sized by the hyperparameters. It is not changed
for TensorFlow 2 (``tf.contrib`` and ``tf.layers`` raise there): tests run
it through ``python -m tf1_train.compat``.

Prints ``hparams``, ``first_loss``, ``last_loss`` and ``kernels`` (the
dense layers' kernel shapes).
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string("hparams", "", "Comma-separated name=value hyperparameter overrides.")
tf.app.flags.DEFINE_integer("steps", 60, "Training steps.")
tf.app.flags.DEFINE_string("train_dir", ".", "Where hparams.json goes.")

hparams = tf.contrib.training.HParams(
    learning_rate=0.05,
    hidden_units=[32, 16],
    activation="relu",
    dropout=0.0,
    seed=1,
)


def hparams_debug_string():
    values = hparams.values()
    return "Hyperparameters:\n" + "\n".join(f"  {k}: {values[k]}" for k in sorted(values))


def model(x, hp, training):
    act = getattr(tf.nn, hp.activation)
    for i, units in enumerate(hp.hidden_units):
        x = tf.layers.dense(x, units, activation=act, name=f"hidden{i}")
        x = tf.layers.dropout(x, rate=hp.dropout, training=training)
    return tf.layers.dense(x, 3, name="logits")


def main(_):
    saved = os.path.join(FLAGS.train_dir, "hparams.json")
    if os.path.exists(saved):  # resuming: the run's own hyperparameters first
        with open(saved) as f:
            hparams.parse_json(f.read())
    hparams.parse(FLAGS.hparams)
    tf.logging.info(hparams_debug_string())
    with open(saved, "w") as f:
        f.write(hparams.to_json(indent=2, sort_keys=True))

    rng = np.random.RandomState(hparams.seed)
    points = rng.randn(300, 4).astype(np.float32)
    labels = (points[:, 0] > 0).astype(np.int64) + (points[:, 1] > 0)
    tf.set_random_seed(hparams.seed)
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.int64, [None])
    logits = model(x, hparams, training=True)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.AdamOptimizer(hparams.learning_rate).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([train, loss], {x: points, y: labels})[1] for _ in range(FLAGS.steps)]
    kernels = [v.shape.as_list() for v in tf.trainable_variables() if "kernel" in v.name]
    print("hparams =", hparams.to_json(sort_keys=True))
    print("first_loss =", losses[0])
    print("last_loss =", losses[-1])
    print("kernels =", kernels)


if __name__ == "__main__":
    tf.app.run()
