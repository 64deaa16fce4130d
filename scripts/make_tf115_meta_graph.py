"""Write tests/goldens/tf115_meta_graph/: a small training graph written by
TensorFlow 1.15.5 itself (``model.ckpt.meta``, its checkpoint) and what TF
1.15.5 computes from them (``expected.json``), which
tests/test_compat_meta_graph.py holds TensorFlow 2.21 to.

A convolution, a batch norm in training (``tf.layers``: its gradient is a
FusedBatchNormGradV3 op, whose recorded output shapes TensorFlow 2 refuses
to import) and a dense layer, trained 3 steps with Momentum and saved with
a ``Saver``, as facenet's released models and many others were. Run it with
TensorFlow 1.15.5, in an environment of its own outside the repository:

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_tf115_meta_graph.py
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "goldens", "tf115_meta_graph")


def build():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    training = tf.placeholder_with_default(False, [], name="phase_train")
    h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.batch_normalization(h, training=training)
    logits = tf.layers.dense(tf.layers.flatten(h), 3, name="logits")
    tf.nn.softmax(logits, name="probs")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    tf.identity(loss, name="loss")
    step = tf.train.get_or_create_global_step()
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, step, name="train")
    tf.add_to_collection("train_op", train)


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    rng = np.random.RandomState(0)
    images = rng.rand(4, 6, 6, 2).astype(np.float32)
    labels = np.array([0, 1, 2, 1])
    feed = {"images:0": images, "labels:0": labels}
    tf.set_random_seed(1)
    build()
    prefix = os.path.join(OUT, "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run("train", {**feed, "phase_train:0": True})
        tf.train.Saver().save(sess, prefix, write_meta_graph=True)
    with tf.Graph().as_default(), tf.Session() as sess:  # as a user restores it
        saver = tf.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        probs = sess.run("probs:0", feed)
        sess.run(tf.get_collection("train_op")[0], {**feed, "phase_train:0": True})
        after = sess.run("loss:0", feed)
        ops = sorted({n.op for n in sess.graph.as_graph_def().node if "BatchNormGrad" in n.op})
    expected = {"tensorflow": tf.__version__, "images": images.tolist(), "labels": labels.tolist(),
                "probs": probs.tolist(), "loss_after_one_more_step": float(after),
                "batch_norm_gradient_ops": ops}  # fmt: skip
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    os.remove(os.path.join(OUT, "checkpoint"))
    print(f"wrote {OUT}: {ops}")


if __name__ == "__main__":
    main()
