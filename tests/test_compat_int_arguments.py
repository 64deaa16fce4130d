"""Integers TF 1.15 took in another type and TensorFlow 2.21 refuses, before
and after tf1_train.compat.install() (tf1_train/compat/_int_arguments.py):
``Dataset.prefetch`` given a NumPy integer, and a shape with a bool or a float in it.
TensorFlow 1.15.5, checked: ``prefetch(np.int64(2))`` yields the dataset,
``get_variable(shape=[1, True, 4])`` is (1, 1, 4) and ``placeholder(shape=[None,
True])`` (?, 1). NVIDIA's StyleGAN has both lines; DeepSpeech's shapes hold a
float, 512.0.
"""

import numpy as np
import pytest
import tensorflow as tf

v1 = tf.compat.v1


def _prefetched(size):
    with tf.Graph().as_default():
        data = tf.data.Dataset.range(5).prefetch(size)
        item = v1.data.make_one_shot_iterator(data).get_next()
        with v1.Session() as sess:
            return [int(sess.run(item)) for _ in range(5)]


def _shapes():
    with tf.Graph().as_default():
        var = v1.get_variable("noise", [1, True, 4], initializer=v1.zeros_initializer())
        fed = v1.placeholder(tf.float32, [None, True])
        return var.shape.as_list(), fed.shape.as_list(), tf.TensorShape([False, 3]).as_list()


@pytest.mark.parametrize("size", [np.int64(2), np.int32(1), np.uint8(3)])
def test_without_install_prefetch_refuses_a_numpy_integer(size):
    with pytest.raises(TypeError, match="legacy_autotune"):
        _prefetched(size)


@pytest.mark.parametrize("size", [np.int64(2), np.int32(1), np.uint8(3), 2, -1])
def test_after_install_prefetch_takes_it_as_tf_1_15_did(installed, size):
    assert _prefetched(size) == [0, 1, 2, 3, 4]


def test_without_install_a_bool_dimension_is_refused():
    with pytest.raises(TypeError, match="Expected an int, got a boolean"):
        _shapes()


def test_after_install_a_bool_dimension_is_the_int_tf_1_15_made_of_it(installed):
    variable, placeholder, shape = _shapes()
    assert (variable, placeholder, shape) == ([1, 1, 4], [None, 1], [0, 3])
    assert all(type(d) is int for d in variable)


# DeepSpeech's Config.audio_window_samples: 16000 * (32 / 1000) == 512.0.
WINDOW = 16000 * (32 / 1000)


def _float_shapes():
    with tf.Graph().as_default():
        fed = v1.placeholder(tf.float32, [None, WINDOW])
        var = v1.get_variable("h1", [WINDOW, 2.0])
        big = tf.zeros([WINDOW, 2.0])  # 1024 elements: through TensorShape, not a constant
        known = v1.placeholder(tf.float32)
        known.set_shape([np.float32(3.0), WINDOW])
        dims = var.shape.as_list() + fed.shape.as_list()[1:]
        return fed.shape.as_list(), var.shape.as_list(), big.shape.as_list(), known, dims


def test_without_install_a_float_dimension_is_refused():
    with pytest.raises(TypeError, match="must be integer or None"):
        _float_shapes()


def test_after_install_a_float_dimension_is_the_int_tf_1_15_made_of_it(installed):
    # measured on TF 1.15.5, 2026-12-07: (?, 512), (512, 2), (512, 2), (3, 512)
    fed, var, big, known, dims = _float_shapes()
    assert (fed, var, big, known.shape.as_list()) == ([None, 512], [512, 2], [512, 2], [3, 512])
    assert all(type(d) is int for d in dims)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.TensorShape([512.5]),
        lambda: v1.placeholder(tf.float32, [None, 512.5]),
        lambda: v1.get_variable("odd", [2.5, 2]),
    ],
)
def test_after_install_a_float_with_a_fraction_raises_tf_1_15s_error(installed, make):
    # measured on TF 1.15.5, 2026-12-07: ValueError: Ambiguous dimension: 512.5 (2.5)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Ambiguous dimension: (512|2)\.5"):
            make()


def test_after_install_shapes_tf_1_15_made_a_tensor_of_still_refuse_a_float(installed):
    # measured on TF 1.15.5, 2026-12-07: "DataType float32 not in list of allowed values"
    with tf.Graph().as_default(), pytest.raises(TypeError, match="float32 not in list"):
        tf.reshape(tf.zeros([512]), [2.0, 256.0])


def _class_count_shapes():
    """The TensorFlow cookbook's ``np.max(labels) + 1`` over MNIST's uint8 labels: uint8
    under NumPy 2, int64 under TF 1.15.5's NumPy 1.18 (which drew these shapes)."""
    classes = np.max(np.array([3, 9], dtype=np.uint8)) + 1
    with tf.Graph().as_default():
        made = [v1.truncated_normal([1024, classes]), v1.random_uniform((classes,))]
        with pytest.raises(TypeError, match="DataType uint8"):  # refused on 1.15.5 too
            v1.random_normal(np.array([2, classes], np.uint8))
        return [t.shape.as_list() for t in made]


def test_without_install_numpy_2s_uint8_class_count_is_refused_as_a_shape():
    assert np.max(np.array([3, 9], dtype=np.uint8)) + 1 == np.uint8(10)  # NEP 50
    with pytest.raises(TypeError, match="DataType uint8"):
        _class_count_shapes()


def test_after_install_it_draws_the_shapes_tf_1_15_5_drew(installed):
    assert _class_count_shapes() == [[1024, 10], [10]]
