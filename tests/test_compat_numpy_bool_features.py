"""``tf.train.Int64List(value=mask)`` of NumPy bools after install()
(tf1_train/compat/_numpy_bool_features.py): XLNet's ``data_utils.py`` stored
its ``is_masked`` array so, and stopped on TensorFlow 2.21 (NumPy 2's bool has
no ``__index__``). The messages are TF 1.15.5's to the byte."""

import numpy as np
import pytest
import tensorflow as tf

# TF 1.15.5, NumPy 1.18.5 (2026-12-07): Int64List(value=np.array([True, False, True])),
# and Feature(int64_list=Int64List(value=[np.bool_(False), np.bool_(True), 7]))
TF_1_15_5 = ("0a03010001", "1a050a03000107")


def _messages():
    mask = tf.train.Int64List(value=np.array([True, False, True]))
    mixed = tf.train.Int64List(value=[np.bool_(False), np.bool_(True), 7])
    return mask, tf.train.Feature(int64_list=mixed)


def test_tensorflow_2_refuses_numpy_bools():
    with pytest.raises(TypeError, match="numpy.bool"):
        _messages()


@pytest.mark.usefixtures("installed")
def test_after_install_they_are_stored_as_tf_1_15_5_stored_them():
    mask, feature = _messages()
    assert (mask.SerializeToString().hex(), feature.SerializeToString().hex()) == TF_1_15_5
    assert list(mask.value) == [1, 0, 1] and isinstance(mask, tf.train.Int64List)
    assert isinstance(mask, tf.compat.v1.train.Int64List)
    again = tf.train.Int64List.FromString(mask.SerializeToString())
    assert again == mask and list(tf.train.Int64List(value=np.arange(3)).value) == [0, 1, 2]
