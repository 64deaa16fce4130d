"""``tensorflow.examples.tutorials.mnist`` after ``install()``: its
``input_data`` (the MNIST reader, _contrib_learn_datasets.py) and its
``mnist`` module, the model of the "TensorFlow Mechanics 101" tutorial
(``fully_connected_feed.py``: ``mnist.inference(images, hidden1, hidden2)``,
``mnist.loss``, ``mnist.training``, ``mnist.evaluation``), which programs
copied from it import. TensorFlow 2.0 dropped ``tensorflow.examples`` from
the pip package.

The model is TF 1.15's, op for op: the same variables (``hidden1/weights``,
..., so its checkpoints restore), initializers, loss (the LOSSES collection)
and summary; tests/test_compat_contrib_learn_datasets.py holds its values to
TF 1.15's source.
"""

from __future__ import annotations

import math
import sys
import types

import tensorflow as tf

from tf1_train.compat import _contrib_learn_datasets as datasets

PACKAGE = "tensorflow.examples"
NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE
# input_data's names: TF 1.x's read_data_sets, and TF 0.x's own reader names
INPUT_DATA = ("read_data_sets", "DataSet", "dense_to_one_hot", "extract_images",
              "extract_labels", "maybe_download")  # fmt: skip
MODEL = ("NUM_CLASSES", "IMAGE_SIZE", "IMAGE_PIXELS", "inference", "loss", "training",
         "evaluation")  # fmt: skip


def served(path: str) -> bool:
    """Whether the ``tensorflow.examples`` path works after install()."""
    packages = (PACKAGE, f"{PACKAGE}.tutorials", f"{PACKAGE}.tutorials.mnist")
    modules = {f"{PACKAGE}.tutorials.mnist.input_data": INPUT_DATA,
               f"{PACKAGE}.tutorials.mnist.mnist": MODEL}  # fmt: skip
    if path in packages or path in modules:
        return True
    return any(path.startswith(m + ".") and path[len(m) + 1 :].split(".")[0] in names
               for m, names in modules.items())  # fmt: skip


DESCRIBE = "TF 1.15's MNIST reader (input_data.read_data_sets) and Mechanics 101 model (mnist)"


def _layer(name: str, inputs, fan_in: int, units: int, relu: bool = True):
    with tf.compat.v1.name_scope(name):
        weights = tf.Variable(
            tf.random.truncated_normal([fan_in, units], stddev=1.0 / math.sqrt(float(fan_in))),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([units]), name="biases")
        out = tf.matmul(inputs, weights) + biases
        return tf.nn.relu(out) if relu else out


def inference(images, hidden1_units, hidden2_units):
    """Logits of two ReLU layers and a linear one over ``[batch, IMAGE_PIXELS]``."""
    hidden1 = _layer("hidden1", images, IMAGE_PIXELS, hidden1_units)
    hidden2 = _layer("hidden2", hidden1, hidden1_units, hidden2_units)
    return _layer("softmax_linear", hidden2, hidden2_units, NUM_CLASSES, relu=False)


def loss(logits, labels):
    """The mean cross entropy over the batch (added to the LOSSES collection)."""
    labels = tf.cast(labels, dtype=tf.int64)
    return tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate):
    """Gradient descent on every trainable variable, counting ``global_step``;
    the loss as a scalar summary."""
    tf.compat.v1.summary.scalar("loss", loss)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """How many of the batch's examples have the label as the top logit (int32)."""
    correct = tf.nn.in_top_k(predictions=logits, targets=labels, k=1)
    return tf.reduce_sum(input_tensor=tf.cast(correct, tf.int32))


def _module(path: str, doc: str, names=(), source=None) -> types.ModuleType:
    module = types.ModuleType(path, f"tf1_train.compat: {doc}")
    module.__path__ = []  # a package: a submodule not served stays missing
    for name in names:
        setattr(module, name, getattr(source, name))
    return module


def modules() -> dict:
    """``{path: module}`` of the examples package, parents holding children."""
    me = sys.modules[__name__]
    found = {
        PACKAGE: _module(PACKAGE, "TF 1.x's tutorial helpers"),
        f"{PACKAGE}.tutorials": _module(f"{PACKAGE}.tutorials", "TF 1.x's tutorial helpers"),
        f"{PACKAGE}.tutorials.mnist": _module(f"{PACKAGE}.tutorials.mnist", "the MNIST tutorials"),
        f"{PACKAGE}.tutorials.mnist.input_data": _module(
            f"{PACKAGE}.tutorials.mnist.input_data", "the MNIST reader", INPUT_DATA, datasets),
        f"{PACKAGE}.tutorials.mnist.mnist": _module(
            f"{PACKAGE}.tutorials.mnist.mnist", "the Mechanics 101 model", MODEL, me),
    }  # fmt: skip
    for path, module in found.items():
        parent, _, child = path.rpartition(".")
        if parent in found:
            setattr(found[parent], child, module)
    return found
