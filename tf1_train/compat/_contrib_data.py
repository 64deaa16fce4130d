"""``tensorflow.contrib.data`` and ``tensorflow.contrib.learn.ModeKeys`` after
``install()``: what input pipelines and model functions of 2017-18 read
from contrib (TensorFlow's NMT: ``tf.contrib.data.group_by_window`` to
bucket sentences by length, ``tf.contrib.learn.ModeKeys`` to tell training
from inference).

TF 1.15's ``tf.contrib.data`` was, for most names, a deprecated second name
of ``tf.data.experimental``: those names are the v1 API's
``tf.compat.v1.data.experimental`` objects again (``DATA_FROM_CORE``). Its
own few are rebuilt on ``tf.data`` (``batch_and_drop_remainder``,
``padded_batch_and_drop_remainder``, ``sliding_window_batch``,
``sloppy_interleave``, ``reduce_dataset``, ``assert_element_shape``,
``read_batch_features``); what TensorFlow 2.21 no longer has at all (the
statistics aggregators, ``LMDBDataset``, the Estimator hook) raises one line.

Of ``tf.contrib.learn`` (Estimators, Experiment, learn_runner: gone with
``tf.estimator``), the ``ModeKeys`` constants are kept, the strings they
were ('train', 'eval', 'infer'), ``preprocessing``'s text processors
(_contrib_learn_text.py) and ``datasets``' MNIST reader and CSV loaders
(_contrib_learn_datasets.py), under TF 1.15's module paths too.
"""

from __future__ import annotations

import types

import numpy as np
import tensorflow as tf

# TF 1.15's contrib.data names that were tf.data.experimental's objects
DATA_FROM_CORE = (
    "AUTOTUNE", "Counter", "CsvDataset", "Optional", "RandomDataset", "Reducer", "SqlDataset",
    "TFRecordWriter", "bucket_by_sequence_length", "choose_from_datasets", "copy_to_device",
    "dense_to_sparse_batch", "enumerate_dataset", "get_next_as_optional", "get_single_element",
    "group_by_reducer", "group_by_window", "ignore_errors", "make_batched_features_dataset",
    "make_csv_dataset", "make_saveable_from_iterator", "map_and_batch", "parallel_interleave",
    "parse_example_dataset", "prefetch_to_device", "rejection_resample", "sample_from_datasets",
    "scan", "shuffle_and_repeat", "unbatch", "unique",
)  # fmt: skip
DATA_OWN = (
    "assert_element_shape", "batch_and_drop_remainder", "padded_batch_and_drop_remainder",
    "read_batch_features", "reduce_dataset", "sliding_window_batch", "sloppy_interleave",
)  # fmt: skip
DATA_KEPT = DATA_FROM_CORE + DATA_OWN
DATA_GONE = (
    "the other tf.data.experimental names are TF 2.21's; LMDBDataset, the statistics "
    "aggregators (StatsAggregator, set_stats_aggregator, latency_stats) and "
    "CheckpointInputPipelineHook (an Estimator hook) are gone"
)
LEARN_KEPT = ("ModeKeys", "datasets", "preprocessing", "python")
LEARN_GONE = (
    "ModeKeys, preprocessing's VocabularyProcessor and datasets' MNIST reader and CSV "
    "loaders are kept; its Estimators, Experiment "
    "and learn_runner went with tf.estimator: a Session loop (or tf1_train's trainer: "
    "docs/YOUR_MODEL.md)"
)
LEARN_PY = "tensorflow.contrib.learn.python"
PREPROCESSING = LEARN_PY + ".learn.preprocessing"
DATASETS_PATH = LEARN_PY + ".learn.datasets"
# learn.datasets' names kept, by module (_contrib_learn_datasets.py)
DATASETS = ("load_dataset", "load_iris", "load_boston")  # and its modules base, mnist
DATASETS_MNIST = ("DEFAULT_SOURCE_URL", "DataSet", "dense_to_one_hot", "extract_images",
                  "extract_labels", "load_mnist", "read_data_sets")  # fmt: skip
DATASETS_BASE = ("Dataset", "Datasets", "load_boston", "load_csv_with_header",
                 "load_csv_without_header", "load_iris", "maybe_download")  # fmt: skip
_learn_modules: dict = {}


class ModeKeys:
    """``tf.contrib.learn.ModeKeys``: the standard names of a model's modes."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"

    @classmethod
    def validate(cls, key):
        if key not in (cls.TRAIN, cls.EVAL, cls.INFER):
            raise ValueError(f"Invalid mode {key}.")


def batch_and_drop_remainder(batch_size):
    """A transformation: ``dataset.batch(batch_size, drop_remainder=True)``."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """A transformation: ``padded_batch`` that drops the last, short batch."""
    return lambda dataset: dataset.padded_batch(
        batch_size, padded_shapes, padding_values, drop_remainder=True
    )


def sliding_window_batch(window_size, stride=None, window_shift=None, window_stride=1):
    """A transformation: batches of ``window_size`` consecutive elements
    (``window_stride`` apart), a new one every ``window_shift`` (or the
    deprecated ``stride``; 1) elements; a last, short window is dropped."""
    if stride is not None and window_shift is not None:
        raise ValueError("Cannot specify both `stride` and `window_shift`")
    shift = window_shift if window_shift is not None else (1 if stride is None else stride)

    def apply(dataset):
        windows = dataset.window(window_size, shift, window_stride, drop_remainder=True)
        return windows.flat_map(
            lambda *parts: tf.data.Dataset.zip(parts[0] if len(parts) == 1 else parts).batch(
                window_size
            )
        )

    return apply


def sloppy_interleave(map_func, cycle_length, block_length=1):
    """``parallel_interleave(..., sloppy=True)``: outputs in any order."""
    return tf.compat.v1.data.experimental.parallel_interleave(
        map_func, cycle_length, block_length, sloppy=True
    )


def reduce_dataset(dataset, reducer):
    """The ``Reducer``'s state over the whole dataset, from its ``init_func``
    of key 0 through its ``reduce_func`` (TF 1.15 applied no ``finalize_func``)."""
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    return dataset.reduce(reducer.init_func(np.int64(0)), reducer.reduce_func)


def assert_element_shape(expected_shapes):
    """A transformation whose elements must have ``expected_shapes`` (a
    structure of shapes like the elements'): the static shapes merged with
    them, the rest checked when each element is made."""

    def check(*element):
        element = element[0] if len(element) == 1 else element
        return tf.nest.map_structure(
            lambda t, shape: tf.ensure_shape(t, tf.TensorShape(shape)), element, expected_shapes
        )

    return lambda dataset: dataset.map(check)


def read_batch_features(file_pattern, batch_size, features,
                        reader=tf.compat.v1.data.TFRecordDataset, reader_args=None,
                        randomize_input=True, num_epochs=None, capacity=10000):  # fmt: skip
    """The next batch of parsed ``features`` (a dict of tensors) from the
    files, through a one-shot iterator, as TF 1.15 returned it."""
    dataset = tf.compat.v1.data.experimental.make_batched_features_dataset(
        file_pattern, batch_size, features, reader=reader, reader_args=reader_args,
        shuffle=randomize_input, num_epochs=num_epochs, shuffle_buffer_size=capacity,
    )  # fmt: skip
    return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()


def data(name: str):
    """``tf.contrib.data.<name>``."""
    if name in DATA_FROM_CORE:
        return getattr(tf.compat.v1.data.experimental, name)
    return globals()[name]


def learn_modules() -> dict:
    """``{path: module}`` for TF 1.15's module paths of learn's text
    processors (``learn.python.learn.preprocessing.text``, ...), which the
    vocabularies TF1 programs pickled name, and of its datasets
    (``learn.python.learn.datasets.mnist``, ...): each holds our objects."""
    if not _learn_modules:
        from tf1_train.compat import _contrib_learn_datasets as sets
        from tf1_train.compat import _contrib_learn_text as text

        names = ("ByteProcessor", "CategoricalVocabulary", "VocabularyProcessor", "tokenizer")
        members = {LEARN_PY: (text, ()), LEARN_PY + ".learn": (text, ()),
                   PREPROCESSING: (text, names), text.TEXT: (text, names + ("TOKENIZER_RE",)),
                   text.VOCABULARY: (text, names[1:2]), sets.PATH: (sets, DATASETS),
                   sets.PATH + ".mnist": (sets, DATASETS_MNIST),
                   sets.PATH + ".base": (sets, DATASETS_BASE)}  # fmt: skip
        for path, (source, names_in) in members.items():
            module = types.ModuleType(path, "tf1_train.compat: TF 1.15's path of contrib.learn")
            module.__path__ = []
            module.__getattr__ = _refuse(path)
            for name in names_in:
                setattr(module, name, getattr(source, name))
            _learn_modules[path] = module
        for path, module in _learn_modules.items():  # parents reach their children
            parent, _, child = path.rpartition(".")
            if parent in _learn_modules:
                setattr(_learn_modules[parent], child, module)
    return _learn_modules


def _refuse(path: str):
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{path}.{name} was removed with tf.contrib in TensorFlow 2.0; tf1_train.compat "
            "keeps learn.preprocessing's VocabularyProcessor, CategoricalVocabulary, "
            "ByteProcessor and tokenizer, and learn.datasets' MNIST reader, load_dataset "
            "and CSV loaders"
        )

    return __getattr__


def learn_kept(name: str, deeper: str) -> bool:
    """Whether ``tf.contrib.learn.<name>.<deeper>`` works after install()."""
    if name in ("preprocessing", "datasets"):
        module = learn_modules()[PREPROCESSING if name == "preprocessing" else DATASETS_PATH]
        return not deeper or hasattr(module, deeper)
    return name == "ModeKeys" or (name == "python" and deeper in ("", "learn"))


def learn(name: str):
    """``tf.contrib.learn.<name>``."""
    if name == "ModeKeys":
        return ModeKeys
    paths = {"python": LEARN_PY, "datasets": DATASETS_PATH}
    return learn_modules()[paths.get(name, PREPROCESSING)]
