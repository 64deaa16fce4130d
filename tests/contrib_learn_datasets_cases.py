"""What the tutorials' MNIST reader and model are held to TF 1.15 on
(scripts/make_contrib_learn_datasets_goldens.py runs these cases through TF
1.15's own ``tensorflow.contrib.learn.python.learn.datasets`` and
``tensorflow.examples.tutorials.mnist.mnist`` source, on TensorFlow 2.21;
tests/test_compat_contrib_learn_datasets.py through tf1_train.compat's).
``compute(datasets, mnist, base, model, directory)`` takes either side's modules and
returns what they made, as JSON: each batch a digest of its bytes."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import tensorflow as tf
from data_files import write_mnist

# read_data_sets' options; the batch sizes cross epochs (40 training examples
# less the validation ones), with ends that do not divide them.
READS = {
    "one_hot_float": dict(one_hot=True, validation_size=8, seed=7),
    "ids_uint8_images": dict(dtype=tf.uint8, reshape=False, validation_size=0, seed=3),
    "numpy_dtype_arg": dict(dtype=np.float32, validation_size=40, seed=1),
    "graph_seed_decides": dict(graph_seed=11, validation_size=5),
    "graph_and_op_seed": dict(graph_seed=11, seed=4, validation_size=5),
    "no_shuffle": dict(shuffle=False, validation_size=3),
}
BATCHES = [7] * 9 + [1, 33, 50, 2]
CSV = "5,3,a,b\n1.5,2,3.25,0\n4,5.5,6,1\n-7,8,9,2\n0,0,0,1\n1e3,2e-3,3,0\n"


def _digest(array) -> list:
    array = np.asarray(array)
    return [str(array.dtype), list(array.shape), hashlib.sha1(array.tobytes()).hexdigest()[:16]]


def _read(mnist, directory, options: dict) -> dict:
    options = dict(options)
    shuffle = options.pop("shuffle", True)
    graph_seed = options.pop("graph_seed", None)
    with tf.Graph().as_default():
        if graph_seed is not None:
            tf.compat.v1.set_random_seed(graph_seed)
        sets = mnist.read_data_sets(directory, **options)
    out = {name: [_digest(s.images), _digest(s.labels), s.num_examples]
           for name, s in zip(("train", "validation", "test"), sets)}  # fmt: skip
    if graph_seed is not None or "seed" in options:
        out["numpy_after"] = int(np.random.randint(1 << 30))  # TF1 seeded NumPy's generator
    batches = []
    for size in BATCHES:
        images, labels = sets.train.next_batch(size, shuffle=shuffle)
        batches.append([_digest(images), _digest(labels), sets.train.epochs_completed])
    out["batches"] = batches
    return out


def _error(fn, directory: str) -> str:
    try:
        fn()
    except (TypeError, ValueError) as e:
        return f"{type(e).__name__}: {e}".replace(directory, "<dir>")
    return "no error"


def _errors(datasets, mnist, directory: str) -> dict:
    bad = os.path.join(directory, "bad")
    os.makedirs(bad, exist_ok=True)
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"):
        src = os.path.join(directory, "train-labels-idx1-ubyte.gz")  # labels as images: magic
        with open(src, "rb") as f, open(os.path.join(bad, name), "wb") as g:
            g.write(f.read())
    return {
        "validation_too_large": _error(lambda: mnist.read_data_sets(directory, validation_size=41),
                                       directory),
        "int32_images": _error(lambda: mnist.read_data_sets(directory, dtype=tf.int32,
                                                                 validation_size=0), directory),
        "labels_as_images": _error(lambda: mnist.read_data_sets(bad), directory),
        "unknown_dataset": _error(lambda: datasets.load_dataset("cifar"), directory),
    }  # fmt: skip


def _csv(base, directory: str) -> dict:
    with_header = os.path.join(directory, "with_header.csv")
    without = os.path.join(directory, "without_header.csv")
    with open(with_header, "w") as f:
        f.write(CSV)
    with open(without, "w") as f:
        f.write(CSV.split("\n", 1)[1])
    a = base.load_csv_with_header(with_header, target_dtype=np.int64, features_dtype=np.float32)
    b = base.load_csv_without_header(without, target_dtype=np.float32, features_dtype=np.float64,
                                     target_column=0)  # fmt: skip
    return {
        name: [type(d).__name__, d._fields, d.data.tolist(), str(d.data.dtype),
               d.target.tolist(), str(d.target.dtype)]
        for name, d in (("with_header", a), ("without_header", b))
    }  # fmt: skip


def _model(model) -> dict:
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(5)
        images = tf.compat.v1.placeholder(tf.float32, [None, model.IMAGE_PIXELS])
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        logits = model.inference(images, 12, 6)
        loss = model.loss(logits, labels)
        train = model.training(loss, 0.1)
        correct = model.evaluation(logits, labels)
        rng = np.random.RandomState(2)
        feed = {images: rng.rand(9, model.IMAGE_PIXELS), labels: rng.randint(0, 10, 9)}
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            first = sess.run([logits, loss, correct], feed)
            sess.run(train, feed)
            after = sess.run([loss, correct], feed)
        graph = tf.compat.v1.get_default_graph()
        return {
            "variables": [(v.name, v.shape.as_list()) for v in tf.compat.v1.global_variables()],
            "logits": first[0].tolist(), "loss": float(first[1]), "correct": int(first[2]),
            "loss_after": float(after[0]), "correct_after": int(after[1]),
            "losses": len(graph.get_collection(tf.compat.v1.GraphKeys.LOSSES)),
            "summaries": len(graph.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)),
            "constants": [model.NUM_CLASSES, model.IMAGE_SIZE, model.IMAGE_PIXELS],
        }  # fmt: skip


def pickled(mnist):
    """A half-read DataSet pickled, and the batches it gives after a seed."""
    import pickle

    rng = np.random.RandomState(4)
    with tf.Graph().as_default():
        dataset = mnist.DataSet(rng.randint(0, 256, (5, 2, 2, 1)).astype(np.uint8),
                                np.arange(5, dtype=np.uint8), seed=1)  # fmt: skip
    dataset.next_batch(3)
    data = pickle.dumps(dataset, protocol=2)
    return data, after_pickle(pickle.loads(data))


def after_pickle(dataset) -> list:
    np.random.seed(9)
    return [np.asarray(a).tolist() for _ in range(2) for a in dataset.next_batch(3)]


def compute(datasets, mnist, base, model, directory: str) -> dict:
    """Everything the goldens hold, read from the files written in ``directory``."""
    write_mnist(directory, compress=True, n_train=40, n_test=12, seed=0)
    out = {name: _read(mnist, directory, options) for name, options in READS.items()}
    fake = mnist.read_data_sets(directory, fake_data=True, one_hot=True, seed=2)
    images, labels = fake.test.next_batch(2, fake_data=True)
    out["fake"] = [fake.train.num_examples, type(images).__name__, _digest(images), labels]
    out["one_hot"] = [_digest(mnist.dense_to_one_hot(np.array([3, 0, 9, 9]), 10)),
                      mnist.dense_to_one_hot(np.array([1, 2]), 3).tolist()]  # fmt: skip
    out["errors"] = _errors(datasets, mnist, directory)
    out["csv"] = _csv(base, directory)
    out["model"] = _model(model)
    return out
