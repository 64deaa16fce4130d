"""A value fetched from a session is a NumPy float32 scalar; NumPy 1.x
(1.18.5 under TensorFlow 1.15.5) computed it with a Python number in
float64, NumPy 2 (NEP 50) keeps float32. So a TF1 program's running sum of
losses (``total = 0; total += sess.run(loss)``: Stanford CS 20's scripts)
and its averages print other digits (docs/PORTING.md); ``float(...)`` of
the fetched value computes what NumPy 1.x did. Expected values as NumPy
1.18.5 printed them (measured)."""

import numpy as np

LOSSES = np.arange(1, 1001, dtype=np.float32) / np.float32(7.0)
NUMPY_1_18_5 = {"sum": 71500.0000000745, "quotient": 0.19047619899113974}


def test_numpy_2_computes_a_fetched_float32_with_a_python_number_in_float32():
    total = 0
    for loss in LOSSES:
        total += loss
    assert type(total) is np.float32 and type(LOSSES[3] / 3) is np.float32
    assert float(LOSSES[3] / 3) != NUMPY_1_18_5["quotient"]


def test_float_of_the_fetched_value_computes_numpy_1_xs_numbers():
    total = 0
    for loss in LOSSES:
        total += float(loss)
    assert total == NUMPY_1_18_5["sum"]
    assert float(LOSSES[3]) / 3 == NUMPY_1_18_5["quotient"]
