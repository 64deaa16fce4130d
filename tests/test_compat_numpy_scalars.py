"""NumPy 2's refusal of a one-element array where a number goes
(tf1_train/compat/_numpy_scalars.py): the stop ends with one note naming the
edit, only where NumPy 1.x would have run, and the edit gives TF 1.15.5's
numbers (tests/legacy_scripts/batch_of_one_style.py: spinningup's buffers)."""

import pathlib

import numpy as np
import pytest
from conftest import ROOT, run_cli, run_legacy_script

from tf1_train.compat._numpy_scalars import NOTE, note

SCRIPT = str(pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "batch_of_one_style.py")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}
TF115_SUM = "-4.731914"  # TF 1.15.5, NumPy 1.18.5: as_written, float and item alike


@pytest.mark.parametrize(
    "idiom, error, noted",
    [
        ("as_written", "ValueError: setting an array element with a sequence.", True),
        ("float", "TypeError: only 0-dimensional arrays can be converted", True),
        ("wider", "ValueError: setting an array element with a sequence.", False),
    ],
)
def test_the_stop_is_noted_only_where_numpy_1_ran(tmp_path, idiom, error, noted):
    out = run_cli(["--v1", SCRIPT, f"--idiom={idiom}"], module="tf1_train.compat", cwd=tmp_path,
                  env=QUIET)  # fmt: skip
    assert out.returncode == 1 and error in out.stderr
    assert out.stderr.rstrip().endswith("note: " + NOTE) == noted
    assert out.stderr.count("note: NumPy 1.x") == noted


def test_the_edit_gives_tf_1_15_5s_numbers(tmp_path):
    values = run_legacy_script("--v1", tmp_path, "--v1_seeds", SCRIPT, "--idiom=item")
    assert values["buffer_sum"] == TF115_SUM


def test_errors_of_other_values_get_no_note():
    buf = np.zeros(3)
    for value in (np.array([1.0, 2.0]), [1.0, 2.0]):
        with pytest.raises(ValueError) as raised:
            buf[0] = value
        assert note(raised.value) == ""
    assert note(ValueError("setting an array element with a sequence.")) == ""
    assert note(TypeError("unsupported operand")) == ""
