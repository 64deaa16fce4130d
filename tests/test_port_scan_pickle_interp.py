"""Two library changes facenet's code stops at on TensorFlow 2.21's NumPy and
SciPy: ``np.load`` of a pickled dict without ``allow_pickle`` (its MTCNN
weights, caffe-tensorflow's ``.npy`` networks), and ``interp1d(kind='slinear')``
over a repeated ``x`` (its validation rate at a false accept rate). The scan
breaks exactly on the lines that raise, and the fixes it gives compute what
SciPy 1.8 did: its k=0 and k=1 splines took ``x`` as it came, knots
``[x0, x..., xn]`` (k=1) or ``[x..., xn]`` (k=0) and the values as coefficients,
which SciPy 1.17's BSpline still evaluates."""

import numpy as np
import pytest
from conftest import raising_lines
from scipy.interpolate import BSpline, interp1d

from tf1_train.port import scan

ERRORS = (AttributeError, ImportError, NameError, TypeError, ValueError)


def _program(weights: str) -> str:
    return (
        "import numpy as np\n"
        "from scipy import interpolate\n"
        f"data_dict = np.load({weights!r}, encoding='latin1').item()\n"
        f"data_dict = np.load({weights!r})[()]\n"
        "far = np.array([0.0, 0.0, 0.0, 0.25, 0.25, 0.5, 1.0])\n"
        "thresholds = np.linspace(0.0, 4.0, 7)\n"
        "f = interpolate.interp1d(far, thresholds, kind='slinear')\n"
        "g = interpolate.interp1d(far, thresholds, kind='zero')\n"
        f"data_dict = np.load({weights!r}, allow_pickle=True, encoding='latin1').item()\n"
        "threshold = np.interp(0.3, far, thresholds)\n"
        "step = thresholds[np.searchsorted(far, 0.3, side='right') - 1]\n"
        "h = interpolate.interp1d(far, thresholds)\n"
    )


def test_the_scan_breaks_exactly_where_numpy_and_scipy_raise(tmp_path):
    weights = tmp_path / "det1.npy"
    np.save(weights, {"conv1": {"weights": np.ones((3, 3, 3, 10), np.float32)}})
    source = _program(str(weights))
    (tmp_path / "prog.py").write_text(source)
    report = scan.scan([str(tmp_path / "prog.py")])
    breaks = {f.line: f.rule for f in report.findings if f.severity == "breaks"}
    assert set(breaks) == raising_lines(source, ERRORS) == {3, 4, 7, 8}
    assert [breaks[n] for n in (3, 4, 7, 8)] == ["numpy-load-pickle"] * 2 + [
        "scipy-interp-repeats"
    ] * 2


def _repeating(rng):
    x = np.sort(rng.integers(0, 8, int(rng.integers(3, 30))) / 8.0)
    return x, rng.random(len(x)) * 4, x[0] < x[-1] and np.any(x[1:] == x[:-1])


@pytest.mark.parametrize("k", [1, 0])
def test_the_fixes_give_scipy_1_8s_values_inside_the_range(k):
    rng = np.random.default_rng(k)
    compared = 0
    for _ in range(300):
        x, y, usable = _repeating(rng)
        if not usable:
            continue
        with pytest.raises(ValueError, match="duplicates"):
            interp1d(x, y, kind="slinear" if k else "zero")
        knots = np.r_[x[0], x, x[-1]] if k else np.r_[x, x[-1]]
        old = BSpline.construct_fast(knots, y, k)  # SciPy 1.8's make_interp_spline
        queries = np.r_[rng.uniform(x[0], x[-1], 10), np.unique(x)]
        queries = queries[queries < x[-1]]
        fixed = np.interp(queries, x, y) if k else y[np.searchsorted(x, queries, "right") - 1]
        np.testing.assert_allclose(fixed, old(queries), rtol=0, atol=1e-12)
        compared += queries.size
    assert compared > 2000


def test_without_repeats_the_fix_is_what_interp1d_still_gives():
    x = np.linspace(0.0, 1.0, 9) ** 2
    y = np.cos(x)
    queries = np.linspace(0.0, 0.99, 50)
    np.testing.assert_allclose(np.interp(queries, x, y), interp1d(x, y, kind="slinear")(queries))
    step = y[np.searchsorted(x, queries, side="right") - 1]
    np.testing.assert_array_equal(step, interp1d(x, y, kind="zero")(queries))
