"""tf.contrib.data and tf.contrib.learn.ModeKeys after tf1_train.compat.install(),
and ``python -m tf1_train.compat -m PACKAGE.MODULE``: a legacy package in
the NMT code base's manner (relative imports, bucketed input, ModeKeys)
trains as its users started it."""

import pathlib

import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script

from tf1_train.compat import _contrib_data

v1 = tf.compat.v1


@pytest.fixture
def contrib(installed):
    names = {}
    exec("from tensorflow.contrib import data, learn", names)  # as a user's module does
    return names["data"], names["learn"]


def _run(dataset):
    """The dataset's elements, as lists, from a TF1 session."""
    with tf.Graph().as_default():
        get_next = v1.data.make_one_shot_iterator(dataset()).get_next()
        out = []
        with v1.Session() as sess:
            while True:
                try:
                    out.append(tf.nest.map_structure(lambda a: a.tolist(), sess.run(get_next)))
                except tf.errors.OutOfRangeError:
                    return out


def test_the_names_that_were_tf_data_experimentals_are_its_objects(contrib):
    data, _ = contrib
    for name in _contrib_data.DATA_FROM_CORE:
        assert getattr(data, name) is getattr(v1.data.experimental, name), name
    for name in _contrib_data.DATA_OWN:
        assert callable(getattr(data, name)), name


def test_sliding_window_batch_gives_tf_115s_documented_windows(contrib):
    # TF 1.15's own docstring examples: a = {[1], ..., [6]}
    data, _ = contrib

    def slide(**kwargs):
        return _run(lambda: tf.data.Dataset.range(1, 7).map(lambda x: tf.reshape(x, [1])).apply(
            data.sliding_window_batch(window_size=3, **kwargs)))  # fmt: skip

    assert slide() == [[[1], [2], [3]], [[2], [3], [4]], [[3], [4], [5]], [[4], [5], [6]]]
    assert slide(window_shift=2) == [[[1], [2], [3]], [[3], [4], [5]]]
    assert slide(stride=2) == slide(window_shift=2)  # the deprecated alias
    assert slide(window_stride=2) == [[[1], [3], [5]], [[2], [4], [6]]]
    pairs = _run(lambda: tf.data.Dataset.range(4).map(lambda x: (x, -x)).apply(
        data.sliding_window_batch(2)))  # fmt: skip
    assert pairs == [([0, 1], [0, -1]), ([1, 2], [-1, -2]), ([2, 3], [-2, -3])]
    with pytest.raises(ValueError, match="Cannot specify both `stride` and `window_shift`"):
        data.sliding_window_batch(3, stride=1, window_shift=1)


def test_the_drop_remainder_batches_and_the_sloppy_interleave(contrib):
    data, _ = contrib
    ten = lambda: tf.data.Dataset.range(10)  # noqa: E731
    assert _run(lambda: ten().apply(data.batch_and_drop_remainder(4))) == [
        [0, 1, 2, 3], [4, 5, 6, 7]]  # fmt: skip
    ragged = lambda: tf.data.Dataset.range(1, 6).map(lambda n: tf.range(n))  # noqa: E731
    padded = _run(lambda: ragged().apply(data.padded_batch_and_drop_remainder(2, [None])))
    assert padded == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]  # 5 dropped
    interleaved = _run(lambda: tf.data.Dataset.range(3).apply(data.sloppy_interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)))  # fmt: skip
    assert sorted(interleaved) == [0, 0, 1, 1, 2, 2]


def test_reduce_dataset_and_assert_element_shape(contrib):
    data, _ = contrib
    reducer = v1.data.experimental.Reducer(
        init_func=lambda key: tf.constant(0, tf.int64),
        reduce_func=lambda state, x: state + x,
        finalize_func=lambda state: state * 100,  # TF 1.15's reduce_dataset skipped it
    )
    with tf.Graph().as_default(), v1.Session() as sess:
        assert sess.run(data.reduce_dataset(tf.data.Dataset.range(5), reducer)) == 10
    vectors = lambda: tf.data.Dataset.range(3).map(lambda n: tf.range(n + 2))  # noqa: E731
    with pytest.raises(tf.errors.InvalidArgumentError):  # the second element has 3 entries
        _run(lambda: vectors().apply(data.assert_element_shape(tf.TensorShape([2]))))
    with tf.Graph().as_default():
        checked = vectors().apply(data.assert_element_shape(tf.TensorShape([None])))
        assert checked.element_spec.shape.as_list() == [None]
        with pytest.raises(ValueError):  # a rank that can never be
            vectors().apply(data.assert_element_shape(tf.TensorShape([2, 2])))


def test_read_batch_features_reads_a_tfrecord_file(contrib, tmp_path):
    data, _ = contrib
    path = str(tmp_path / "x.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(6):
            feature = {"x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}
            writer.write(tf.train.Example(
                features=tf.train.Features(feature=feature)).SerializeToString())  # fmt: skip
    with tf.Graph().as_default(), v1.Session() as sess:
        batch = data.read_batch_features(path, 3, {"x": tf.io.FixedLenFeature([], tf.int64)},
                                         randomize_input=False, num_epochs=1)  # fmt: skip
        assert sess.run(batch)["x"].tolist() == [0, 1, 2]


def test_learn_keeps_mode_keys_and_the_rest_says_what_is_gone(contrib):
    data, learn = contrib
    assert (learn.ModeKeys.TRAIN, learn.ModeKeys.EVAL, learn.ModeKeys.INFER) == (
        "train", "eval", "infer")  # fmt: skip
    with pytest.raises(ValueError, match="Invalid mode predict"):
        learn.ModeKeys.validate("predict")
    kept = "ModeKeys, preprocessing's VocabularyProcessor and datasets' MNIST reader"
    with pytest.raises(AttributeError, match=f"learn.Experiment was removed.*{kept}"):
        learn.Experiment  # noqa: B018
    with pytest.raises(AttributeError, match="LMDBDataset.*are gone"):
        data.LMDBDataset  # noqa: B018


def test_a_legacy_package_trains_through_python_m_compat_dash_m():
    # tests/legacy_scripts/nmt_package: `python -m nmt_package.train` in TF1,
    # relative imports, tf.contrib.data's shuffle_and_repeat and group_by_window
    # bucketing, tf.contrib.learn.ModeKeys. Measured: 0.69 -> 0.08 in 120
    # steps, 98.7% held out, batches 2 lengths wide at most (buckets of 3).
    scripts = pathlib.Path(ROOT) / "tests" / "legacy_scripts"
    values = run_legacy_script("-m", scripts, "nmt_package.train")
    assert float(values["last_loss"]) < float(values["first_loss"]) / 4
    assert float(values["accuracy"]) > 0.9
    assert int(values["widest_bucket"]) < 3  # bucketed by length // 3
