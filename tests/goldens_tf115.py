"""The TensorFlow 1.15.5 goldens in tests/goldens/*.npz (``<case>|<array>``
keys, made by scripts/make_contrib_opt_goldens.py) and how a case's arrays
are held to them."""

import os

import numpy as np
from conftest import ROOT, run_cli

PROGRAM = """\
import sys
import numpy as np
import tensorflow as tf
sys.path.insert(0, {tests!r})
import {cases} as cases
import tensorflow.contrib.{module} as module
arrays = {{}}
for name in sys.argv[2].split(","):
    arrays.update({{name + "|" + k: v for k, v in cases.CASES[name](module, tf.compat.v1).items()}})
print("variables =", type(tf.compat.v1.get_variable("probe", [1])).__name__)
np.savez(sys.argv[1], **arrays)
"""


def load(filename: str) -> dict:
    """A golden file (a name in tests/goldens, or a path) as {key: array}."""
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


def run_on_reference_variables(cases: str, module: str, names, tmp_path, v1_variables=True) -> dict:
    """``names`` of the cases module ``cases`` on ``tensorflow.contrib.<module>``,
    run by ``python -m tf1_train.compat --v1_variables`` (TF 1.x's reference
    variables; without ``v1_variables``, TF 2's resource variables: a
    process of their own, for cases that start servers), as the golden file
    holds them."""
    program = PROGRAM.format(tests=os.path.join(ROOT, "tests"), cases=cases, module=module)
    (tmp_path / "prog.py").write_text(program)
    flags = ["--v1_variables"] if v1_variables else []
    argv = [*flags, "prog.py", str(tmp_path / "ref.npz"), ",".join(names)]
    out = run_cli(argv, module="tf1_train.compat", cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    kind = "RefVariable" if v1_variables else "ResourceVariable"
    assert f"variables = {kind}" in out.stdout
    return load(str(tmp_path / "ref.npz"))
