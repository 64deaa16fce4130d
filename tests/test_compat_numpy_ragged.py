"""NumPy 1.x's object array of sequences of unequal lengths after install()
(tf1_train/compat/_numpy_ragged.py), and SciPy 1.x's lfilter of it
(_scipy_object_filter.py). NumPy 1.24+ raises ``ValueError: ...
inhomogeneous shape``; openai's universe-starter-agent stopped so at its
first update (``np.asarray(rewards + [value])``), the TensorFlow cookbook at
``np.nan_to_num`` and ``np.random.choice``. Past it, the starter agent
discounts that array with ``scipy.signal.lfilter`` (SciPy 1.17 refuses an
object array) and feeds the result to a float32 placeholder (NumPy 2 refuses
its one-element arrays). The expected values are what NumPy 1.18.5 and SciPy
1.2.3 (TensorFlow 1.15.5's) gave for the same calls (measured)."""

import os
import sysconfig

import numpy as np
import pytest
import tensorflow as tf

from tf1_train.compat import _numpy_ragged, _scipy_object_filter

RAGGED = [[1, 2], [3]]


@pytest.fixture
def fresh(installed, monkeypatch):
    monkeypatch.setattr(_numpy_ragged, "_noted", [])
    monkeypatch.setattr(_scipy_object_filter, "_noted", [])


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


# (hex of the value, whether it is an array): SciPy 1.2.3's lfilter of REWARDS_AND_VALUE
DISCOUNTED = [
    ("0x1.c0336595860eap+0", True), ("0x1.436f640639d5ep+0", True),
    ("0x1.24a4dd2f1a9fcp+1", True), ("0x1.279999999999ap+1", True),
    ("0x1.4000000000000p-2", True),
]  # fmt: skip
FILTERED = [
    ("0x1.0000000000000p-3", False), ("-0x1.4000000000000p-3", False),
    ("-0x1.6000000000000p-3", False), ("0x1.de00000000000p-2", False),
    ("0x1.d280000000000p-2", True),
]  # fmt: skip
REWARDS_AND_VALUE = [0.5, -1.0, 0.0, 2.0, np.array([0.3125])]


def test_numpy_2_refuses_a_ragged_array():
    with pytest.raises(ValueError, match="inhomogeneous shape"):
        np.array(RAGGED)


def test_the_program_gets_numpy_1_18s_object_arrays(fresh, capsys):
    made = np.array(RAGGED)
    assert made.dtype == object and made.shape == (2,) and made[1] == [3]
    note = capsys.readouterr().err.strip().splitlines()
    assert len(note) == 1 and note[0].startswith("note: test_compat_numpy_ragged.py:")
    assert "np.array of sequences of unequal lengths made as NumPy 1.x made it" in note[0]
    a3c = np.asarray([np.array([1.0]), np.array([2.0]), 3.0])  # rewards + [value]
    assert a3c.dtype == object and a3c.shape == (3,) and a3c[2] == 3.0
    cleaned = np.nan_to_num(([1.0, 2.0], [3.0]))
    assert cleaned.dtype == object and cleaned[0] == [1.0, 2.0]
    assert np.array([[[1], [2]], [[3]]]).shape == (2,)
    assert capsys.readouterr().err == ""  # noted once


def test_choice_draws_what_numpy_1_18_drew(fresh):
    np.random.seed(0)
    assert np.random.choice(RAGGED) == [1, 2]
    drawn = np.random.choice([[1, 2], [3], [4, 5, 6]], size=2)
    assert drawn.dtype == object and list(drawn) == [[3], [1, 2]]


def test_lfilter_filters_an_object_array_as_scipy_1_2_did(fresh, capsys):
    import scipy.signal
    from scipy.signal import lfilter

    x = np.asarray(REWARDS_AND_VALUE)
    discounted = lfilter([1], [1, -0.99], x[::-1], axis=0)[::-1]  # the starter agent's discount
    notes = capsys.readouterr().err.splitlines()  # the array's, then lfilter's
    assert notes[1].startswith("note: scipy.signal.lfilter of an object array")
    filtered = scipy.signal.lfilter([0.5, 0.25], [2.0, -0.5, 0.125], x)
    for got, want in [(discounted, DISCOUNTED), (filtered, FILTERED)]:
        assert got.dtype == object
        assert [(float(np.ravel(v)[0]).hex(), isinstance(v, np.ndarray)) for v in got] == want
    with pytest.raises(NotImplementedError):  # SciPy 1.x gave (y, zf); not served
        lfilter([1], [1, -0.99], x, zi=_objects([0.0]))


def test_a_fed_object_array_of_one_element_arrays_is_its_numbers(fresh, capsys):
    returns = _objects([1.5, np.array([2.25]), np.array([[3.0]])])
    with tf.Graph().as_default():
        fed = tf.compat.v1.placeholder(tf.float32, [None])
        with tf.compat.v1.Session() as sess:
            assert sess.run(fed, {fed: returns}).tolist() == [1.5, 2.25, 3.0]
            assert sess.run(fed, {fed: [0.5, np.array([2.5])]}).tolist() == [0.5, 2.5]
            with pytest.raises(ValueError):  # NumPy 1.18.5 refused it too
                sess.run(fed, {fed: _objects([np.array([1.0]), np.array([2.0, 3.0])])})
    assert capsys.readouterr().err.count("note: a fed value holding one-element arrays") == 1
    assert np.asarray([1.5, np.array([2.25])], np.float32).tolist() == [1.5, 2.25]


def test_what_numpy_1_x_refused_stays_refused(fresh, capsys):
    with pytest.raises(ValueError, match="inhomogeneous"):
        np.array(RAGGED, dtype=float)
    with pytest.raises(ValueError, match="inhomogeneous"):
        np.asarray(RAGGED, np.float32)
    with pytest.raises(ValueError, match=r"could not broadcast .*\(2,3\)"):  # 1.18's own error
        np.array([np.zeros((2, 3)), np.zeros((2, 4))])
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "folder",
    [os.path.join(sysconfig.get_paths()["stdlib"], "lib.py"), "/x/site-packages/lib/io.py"],
)
def test_a_library_still_gets_the_error_it_may_rely_on(fresh, folder):
    code = compile("np.array(RAGGED)", folder, "exec")
    with pytest.raises(ValueError, match="inhomogeneous"):
        exec(code, {"np": np, "RAGGED": RAGGED})


def test_uninstall_gives_numpy_and_scipy_their_own_functions_back():
    import scipy.signal

    import tf1_train.compat

    originals = np.array, scipy.signal.lfilter
    tf1_train.compat.install()
    assert np.array is not originals[0] and np.random.choice.__name__ == "choice"
    assert scipy.signal.lfilter is not originals[1]
    tf1_train.compat.uninstall()
    assert (np.array, scipy.signal.lfilter) == originals
