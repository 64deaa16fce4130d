"""A legacy TF1 program on TensorFlow Hub's TF1 format, as ELMo and Universal
Sentence Encoder users wrote it: ``hub.Module(path)`` called on a batch of
sentences, its named signature ``as_dict``, ``hub.Module(path,
trainable=True)`` fine-tuned with a v1 optimizer; then a module of its own
made with ``create_module_spec``/``add_signature`` and exported. Not changed
for TensorFlow 2: tests run it through ``python -m tf1_train.compat --v1``
with tensorflow-hub 0.15.0.

Usage: hub_module_style.py MODULE_DIR EXPORT_DIR; prints ``outputs``,
``ids``, ``variables``, ``signatures``, ``fine_tuned_losses`` (of the
module in MODULE_DIR) and ``exported`` (the exported module's output).
"""

import json
import sys

import numpy as np
import tensorflow as tf
import tensorflow_hub as hub

SENTENCES = [["good", "movie"], ["bad", "plot"], ["movie", "nothing"]]


def use(path):
    """The module's outputs, its lookup signature's ids, its variables and signatures."""
    with tf.Graph().as_default():
        module = hub.Module(path)
        outputs = module(tf.constant(SENTENCES))
        ids = module(tf.constant(SENTENCES), signature="lookup", as_dict=True)["ids"]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            got, got_ids = sess.run([outputs, ids])
        return {
            "outputs": got.tolist(),
            "ids": got_ids.tolist(),
            "variables": sorted(v.name for v in module.variables),
            "signatures": sorted(module.get_signature_names()),
        }


def fine_tune(path):
    """The losses of 3 SGD steps through the module's variables."""
    with tf.Graph().as_default():
        module = hub.Module(path, trainable=True)
        loss = tf.reduce_sum(tf.square(module(tf.constant(SENTENCES)) - 1.0))
        train = tf.train.GradientDescentOptimizer(0.02).minimize(loss)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            return [float(sess.run([loss, train])[0]) for _ in range(3)]


def module_fn():
    x = tf.placeholder(tf.float32, [None, 3])
    start = np.arange(6.0).reshape(3, 2)
    w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(start))
    hub.add_signature(inputs=x, outputs=tf.matmul(x, w))


def export(path):
    with tf.Graph().as_default():
        module = hub.Module(hub.create_module_spec(module_fn))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            module.export(path, sess)
    with tf.Graph().as_default():
        y = hub.Module(path)(tf.constant([[1.0, 2.0, 3.0]]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print("exported = " + json.dumps(sess.run(y).tolist()))


if __name__ == "__main__":
    for key, value in {**use(sys.argv[1]), "fine_tuned_losses": fine_tune(sys.argv[1])}.items():
        print(key + " = " + json.dumps(value))
    export(sys.argv[2])
