"""The MNIST reader of TensorFlow's 2016-19 tutorials after ``install()``:
``from tensorflow.examples.tutorials.mnist import input_data``,
``mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)``,
``mnist.train.next_batch(100)``, ``mnist.test.images``. Thousands of TF1
programs (the getting-started tutorials, TensorFlow-Examples, book and blog
code) start so; TensorFlow 2.0 dropped ``tensorflow.examples`` from the pip
package, and the program dies at its first line. The same code was
``tf.contrib.learn.datasets.mnist`` (``load_dataset("mnist")``) and its
``base`` module (``Datasets``, ``load_csv_with_header``, ``maybe_download``).

Written again to TF 1.15's behaviour, batch for batch: the first epoch is
shuffled, an epoch's last short batch is completed from the next, reshuffled
epoch, and the shuffles use NumPy's global generator, which each ``DataSet``
seeds from ``tf.compat.v1.get_seed(seed)`` as TF1 did (a graph seed set with
``set_random_seed`` decides the batches). tests/test_compat_contrib_learn_datasets.py
holds every batch, dtype and error to what TF 1.15's own source produced
(scripts/make_contrib_learn_goldens.py). Two things differ, both refusals
TF1 gave less clearly: a truncated file is a ``ValueError`` naming it (TF1:
a reshape error), and a download that fails names the file to put in place.
"""

from __future__ import annotations

import collections
import csv
import gzip
import os
import urllib.request

import numpy as np
import tensorflow as tf

from tf1_train.data import files

PATH = "tensorflow.contrib.learn.python.learn.datasets"
DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")  # fmt: skip

Dataset = collections.namedtuple("Dataset", ["data", "target"], module=PATH + ".base")
Datasets = collections.namedtuple(
    "Datasets", ["train", "validation", "test"], module=PATH + ".base"
)


def _read32(stream) -> int:
    word = stream.read(4)
    if len(word) < 4:
        raise ValueError(f"truncated: the IDX header of {stream.name} ends early")
    return int(np.frombuffer(word, np.dtype(">u4"))[0])


def _body(stream, name: str, dims) -> np.ndarray:
    """The data the header promised, all of it (a truncated download raises)."""
    size = int(np.prod(dims, dtype=np.int64))
    if size > files.MAX_FILE_BYTES:  # the bound tf1_train's own MNIST reader keeps
        raise ValueError(f"{name}: the header promises {size:,} bytes: damaged, or not MNIST's")
    data = stream.read(size)
    if len(data) != size:
        raise ValueError(
            f"{name}: truncated: the header promises {' x '.join(map(str, dims))} = {size} "
            f"bytes, the file has {len(data)}; download it again"
        )
    return np.frombuffer(data, np.uint8).reshape(dims)


def extract_images(f) -> np.ndarray:
    """The images of an open gzipped IDX file, uint8 ``[index, y, x, 1]``."""
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2051:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: {f.name}")
        count, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        return _body(stream, f.name, (count, rows, cols, 1))


def dense_to_one_hot(labels_dense, num_classes):
    """Class ids to one-hot rows (float64, as NumPy's zeros are)."""
    num_labels = labels_dense.shape[0]
    one_hot = np.zeros((num_labels, num_classes))
    one_hot.flat[np.arange(num_labels) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10) -> np.ndarray:
    """The labels of an open gzipped IDX file: uint8 ids, or one-hot rows."""
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2049:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: {f.name}")
        labels = _body(stream, f.name, (_read32(stream),))
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels in memory, served by ``next_batch``. The attribute
    names are TF 1.15's: a DataSet it pickled restores as this class."""

    def __init__(self, images, labels, fake_data=False, one_hot=False,
                 dtype=tf.float32, reshape=True, seed=None):  # fmt: skip
        seed1, seed2 = tf.compat.v1.get_seed(seed)
        np.random.seed(seed1 if seed is None else seed2)  # TF1 seeded NumPy's global generator
        dtype = tf.as_dtype(dtype).base_dtype
        if dtype not in (tf.uint8, tf.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            assert images.shape[0] == labels.shape[0], (
                f"images.shape: {images.shape} labels.shape: {labels.shape}")  # fmt: skip
            self._num_examples = images.shape[0]
            if reshape:  # [n, rows, cols, 1] -> [n, rows * cols]
                assert images.shape[3] == 1
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == tf.float32:  # [0, 255] -> [0.0, 1.0]
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def _shuffle(self):
        order = np.arange(self._num_examples)
        np.random.shuffle(order)
        self._images, self._labels = self._images[order], self._labels[order]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next ``batch_size`` examples; an epoch's short last batch is
        completed from the start of the next (reshuffled) epoch."""
        if fake_data:
            label = [1] + [0] * 9 if self.one_hot else 0
            return [[1] * 784 for _ in range(batch_size)], [label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start : self._index_in_epoch], self._labels[
                start : self._index_in_epoch
            ]
        self._epochs_completed += 1
        images_rest = self._images[start : self._num_examples]
        labels_rest = self._labels[start : self._num_examples]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = end = batch_size - (self._num_examples - start)
        return (np.concatenate((images_rest, self._images[:end]), axis=0),
                np.concatenate((labels_rest, self._labels[:end]), axis=0))  # fmt: skip


def maybe_download(filename, work_directory, source_url):
    """``work_directory/filename``, downloaded from ``source_url`` first if it
    is not there; a failed download names the file to put in place."""
    if not tf.io.gfile.exists(work_directory):
        tf.io.gfile.makedirs(work_directory)
    filepath = os.path.join(work_directory, filename)
    if not tf.io.gfile.exists(filepath):
        try:
            temp_name, _ = urllib.request.urlretrieve(source_url)
        except (OSError, ValueError) as e:
            raise OSError(
                f"{filepath} is missing and downloading {source_url} failed ({e}); put the "
                "file there (the MNIST reader needs " + ", ".join(FILES) + ")"
            ) from None
        tf.io.gfile.copy(temp_name, filepath)
        print("Successfully downloaded", filename, tf.io.gfile.stat(filepath).length, "bytes.")
    return filepath


def _read(train_dir, name, source_url, extract, **kw):
    with tf.io.gfile.GFile(maybe_download(name, train_dir, source_url + name), "rb") as f:
        return extract(f, **kw)


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=tf.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=DEFAULT_SOURCE_URL):  # fmt: skip
    """``Datasets(train, validation, test)`` of the four MNIST files in
    ``train_dir`` (downloaded if missing); the first ``validation_size``
    training examples are the validation set."""
    if fake_data:
        return Datasets(*(DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
                          for _ in range(3)))  # fmt: skip
    source_url = source_url or DEFAULT_SOURCE_URL
    train_images = _read(train_dir, FILES[0], source_url, extract_images)
    train_labels = _read(train_dir, FILES[1], source_url, extract_labels, one_hot=one_hot)
    test_images = _read(train_dir, FILES[2], source_url, extract_images)
    test_labels = _read(train_dir, FILES[3], source_url, extract_labels, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(
            f"Validation size should be between 0 and {len(train_images)}. "
            f"Received: {validation_size}."
        )
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
        validation=DataSet(
            train_images[:validation_size], train_labels[:validation_size], **options),
        test=DataSet(test_images, test_labels, **options),
    )  # fmt: skip


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)


def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1):
    """A CSV whose header row starts ``n_samples,n_features``: ``Dataset(data, target)``."""
    with tf.io.gfile.GFile(filename) as csv_file:
        rows = csv.reader(csv_file)
        header = next(rows)
        n_samples, n_features = int(header[0]), int(header[1])
        data = np.zeros((n_samples, n_features), dtype=features_dtype)
        target = np.zeros((n_samples,), dtype=target_dtype)
        for i, row in enumerate(rows):
            target[i] = np.asarray(row.pop(target_column), dtype=target_dtype)
            data[i] = np.asarray(row, dtype=features_dtype)
    return Dataset(data=data, target=target)


def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1):
    """A CSV of rows only: ``Dataset(data, target)``."""
    with tf.io.gfile.GFile(filename) as csv_file:
        data, target = [], []
        for row in csv.reader(csv_file):
            target.append(row.pop(target_column))
            data.append(np.asarray(row, dtype=features_dtype))
    return Dataset(data=np.array(data), target=np.array(target, dtype=target_dtype))


def _bundled(name: str, sklearn: str):
    def load(data_path=None):
        if data_path is None:
            raise FileNotFoundError(
                f"{PATH}.{name}() read a CSV that shipped inside TensorFlow 1.x, which 2.21 "
                f"lacks: pass data_path= (a CSV with load_csv_with_header's header), or use "
                f"sklearn.datasets.{sklearn}"
            )
        target = int if name == "load_iris" else float
        return load_csv_with_header(data_path, target_dtype=target, features_dtype=float)

    load.__name__ = name
    return load


load_iris = _bundled("load_iris", "load_iris()")
load_boston = _bundled("load_boston", "fetch_openml('boston')")


def load_dataset(name, size="small", test_with_fake_data=False):
    """``load_dataset("mnist")``: the MNIST ``Datasets`` from ``MNIST-data``."""
    loaders = {"iris": load_iris, "boston": load_boston, "mnist": load_mnist}
    if name == "dbpedia":
        raise ValueError(
            f"{PATH}.load_dataset('dbpedia') downloaded and read DBpedia's CSVs with "
            "contrib's text_datasets, which tf1_train.compat does not keep: read the CSVs "
            "yourself (load_csv_without_header)"
        )
    if name not in loaders:
        raise ValueError(f"Name of dataset is not found: {name}")
    return loaders[name]()


for _obj in (DataSet, extract_images, extract_labels, dense_to_one_hot, read_data_sets, load_mnist):
    _obj.__module__ = PATH + ".mnist"  # the paths TF1 pickles named (install() registers them)
for _obj in (maybe_download, load_csv_with_header, load_csv_without_header):
    _obj.__module__ = PATH + ".base"
