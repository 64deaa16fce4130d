"""The TensorFlow 1.15.5 goldens in tests/goldens/*.npz (``<case>|<array>``
keys, made by scripts/make_contrib_opt_goldens.py) and how a case's arrays
are held to them."""

import os

import numpy as np
from conftest import ROOT


def load(filename: str) -> dict:
    with np.load(os.path.join(ROOT, "tests", "goldens", filename)) as f:
        return {k: f[k] for k in f.files}


def case_names(golden: dict) -> list:
    return sorted({k.split("|")[0] for k in golden if "|" in k})


def of_case(golden: dict, name: str) -> dict:
    return {k.split("|", 1)[1]: v for k, v in golden.items() if k.startswith(name + "|")}


def assert_matches(arrays: dict, want: dict, tolerance=lambda key: (1e-5, 1e-6)) -> None:
    """The same arrays, shapes and names; numbers to ``tolerance(key)`` (rtol, atol)."""
    assert sorted(arrays) == sorted(want)
    for key, expected in want.items():
        assert arrays[key].shape == expected.shape, key
        if expected.dtype.kind == "U":  # names
            np.testing.assert_array_equal(arrays[key], expected, err_msg=key)
        else:
            rtol, atol = tolerance(key)
            np.testing.assert_allclose(arrays[key], expected, rtol=rtol, atol=atol, err_msg=key)
