"""What NumPy 2 removed that TF1-era programs use: the 37 names install()
puts back as NumPy 1.x had them and numpy.lib's 152 aliases (np.lib.pad)
(tf1_train/compat/_numpy_removed.py), and the scanner's verdict on each use
against what the program does, with and without install() (the methods and
arguments it cannot put back still break)."""

import numpy as np
import pytest
from conftest import raising_lines

from tf1_train.compat import _numpy_removed
from tf1_train.port import scan

PROGRAM = (
    "import numpy as np\n"
    "a = np.arange(4.0)\n"
    "b = a.tostring()\n"
    "c = np.fromstring(a.tobytes(), dtype=np.float64)\n"
    "d = np.reshape(a, newshape=(2, 2))\n"
    "e = np.float_(1) + np.NINF\n"
    "f = np.asscalar(a[:1])\n"
    "g = np.frombuffer(a.tobytes(), dtype=np.float64)\n"
    "h = np.reshape(a, (2, 2))\n"
    "i = a.tobytes() + b'x'.hex().encode()\n"
    "j = np.lookfor\n"
    "k = a.copy().itemset(0, 1.0)\n"
    "m = np.in1d([[1, 2], [3, 4]], [2, 3])\n"
    "n = np.cast[np.float32]((np.arange(3) - 127.5) / 127.5)\n"
    "o = (a - a.min(0)) / a.ptp(0)\n"
    "p = np.ptp(a, 0) + a.view(np.dtype(float).newbyteorder('S')).sum()  # dtype's: kept\n"
    "r = int(np.random.choice(4, size=1))\n"
    "s = int(np.random.choice(4)) + int(np.random.randint(0, 4, 1)[0]) + float(np.sum(a))\n"
    "t = float(np.random.randint(0, 4, (1,)))\n"
)


def test_install_puts_back_what_numpy_1_had(installed):
    assert sorted(_numpy_removed.missing()) == []  # all back
    assert np.float_ is np.float64 and np.string_ is np.bytes_ and np.bool8 is np.bool_
    assert np.NINF == -np.inf and np.isnan(np.NaN) and np.product is np.prod
    assert np.asscalar(np.array([2.5])) == 2.5 and type(np.asscalar(np.array([2]))) is int
    np.testing.assert_array_equal(np.in1d([[1, 2], [3, 4]], [2, 3]), [False, True, True, False])
    np.testing.assert_array_equal(np.msort(np.array([[3, 1], [1, 2]])), [[1, 1], [3, 2]])
    assert np.asfarray([1, 2]).dtype == np.float64
    assert np.asfarray([1, 2], dtype=np.float32).dtype == np.float32
    assert np.asfarray([1, 2], dtype=int).dtype == np.float64  # NumPy 1.x's rule
    assert np.cast[np.float32]([1, 2]).dtype == np.float32  # pixel-cnn's input scaling
    assert np.cast["int64"](np.array([1.7, -1.7])).tolist() == [1, -1]  # astype truncates
    assert np.cast[np.dtype("float16")](3).shape == ()


def test_numpy_2_lacks_them_without_install():
    assert sorted(_numpy_removed.missing()) == sorted(_numpy_removed.RESTORED)
    with pytest.raises(AttributeError):
        np.float_  # noqa: B018


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_breaks_exactly_where_numpy_2_raises(tmp_path, compat, request):
    if compat:
        request.getfixturevalue("installed")
    (tmp_path / "prog.py").write_text(PROGRAM)
    report = scan.scan([str(tmp_path)], compat=compat)
    breaks = {f.line for f in report.findings if f.severity == "breaks"}
    assert breaks == raising_lines(PROGRAM, (AttributeError, TypeError, ValueError))
    assert breaks == ({3, 4, 5, 11, 12, 15, 17, 19} if compat
                      else {3, 4, 5, 6, 7, 11, 12, 13, 14, 15, 17, 19})  # fmt: skip


def test_install_puts_back_numpy_lib_s_aliases_of_numpy_s_functions(installed):
    # measured on NumPy 1.18.5 (TF 1.15.5's), 2026-12-07: the values asserted below
    padded = np.lib.pad(np.array([1, 2]), [0, 2], "constant", constant_values=(0, 0))
    assert padded.tolist() == [1, 2, 0, 0]  # Kyubyong/transformer's data_load.py
    assert np.lib.pad(np.array([[1, 2]]), ((1, 0), (0, 1)), "edge").tolist() == [[1, 2, 2]] * 2
    assert np.lib.asscalar(np.array([2.5])) == 2.5 and np.lib.in1d([1, 5], [5]).tolist() == [0, 1]
    assert np.lib.unique([3, 1, 3]).tolist() == [1, 3] and np.lib.r_[1:3, 7].tolist() == [1, 2, 7]
    assert np.lib.trapz([1, 2, 3]) == 4.0 and np.lib.emath.sqrt(-4) == 2j
    assert np.lib.pad is np.pad and np.lib.asscalar is np.asscalar
    assert len(_numpy_removed.LIB_ALIASES) == 146 and _numpy_removed.lib_missing() == {}


def test_numpy_2_lacks_numpy_lib_s_aliases_without_install():
    lacking = _numpy_removed.lib_missing()
    assert len(lacking) == 152 and lacking["pad"] is np.pad
    with pytest.raises(AttributeError, match="no attribute 'pad'"):
        np.lib.pad  # noqa: B018
