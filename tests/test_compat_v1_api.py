"""``python -m tf1_train.compat --v1``: ``import tensorflow as tf`` in the
program's own files means the v1 API, as on TensorFlow 1.x, so a TF 1.x
program runs with its import lines as they were; ``python -m tf1_train.port
scan --v1`` reads the program the same way."""

import pathlib

from conftest import ROOT, run_cli, run_legacy_script

from tf1_train.compat import _v1_imports
from tf1_train.port import scan, scan_cli

SCRIPTS = pathlib.Path(ROOT) / "tests" / "legacy_scripts"
PROGRAM = [str(SCRIPTS / "tf1x_style.py"), str(SCRIPTS / "tf1x_model.py")]
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}


def test_a_tf1x_program_runs_as_written_with_v1_and_stops_without(tmp_path):
    # tests/legacy_scripts/tf1x_style.py and its module tf1x_model.py: import
    # tensorflow as tf, tf.app.flags/run, placeholders, tf.layers,
    # tf.contrib.data, a Session. Measured: 4.93 -> 0.02 in 150 steps.
    values = run_legacy_script("--v1", tmp_path, PROGRAM[0], "--steps=150")
    assert float(values["last_loss"]) < float(values["first_loss"]) / 50
    plain = run_cli([PROGRAM[0]], module="tf1_train.compat", cwd=tmp_path, env=QUIET)
    assert plain.returncode == 1
    assert "cannot import name 'placeholder' from 'tensorflow'" in plain.stderr


def test_only_the_programs_own_files_are_served_the_v1_api(tmp_path):
    owned = _v1_imports._owner([str(tmp_path)])
    assert owned({"__file__": str(tmp_path / "train.py")})
    assert owned({"__file__": str(tmp_path / "pkg" / "model.py")})
    assert not owned({"__file__": str(tmp_path.parent / "elsewhere.py")})
    venv_file = tmp_path / "venv" / "lib" / "site-packages" / "tf_slim" / "layers.py"
    assert not owned({"__file__": str(venv_file)})  # installed packages keep TF2's API
    assert not owned({"__file__": _v1_imports.__file__})  # and so does tf1_train
    assert not owned({}) and not owned(None)  # exec'd code, the interpreter's prompt


def test_the_scan_with_v1_finds_what_the_v1_run_meets():
    # Without --v1, every v1 name under `import tensorflow as tf` is a rename;
    # with it, the program's constructs are the v1 API's, as they run.
    plain = scan.scan(PROGRAM, compat=True)
    v1 = scan.scan(PROGRAM, v1=True)
    assert sum(f.severity == "rename" for f in plain.findings) >= 10
    assert {f.severity for f in v1.findings} == {"works"}
    assert sorted(f.construct.split(" ")[0] for f in v1.findings) == [
        "tf.contrib.data.batch_and_drop_remainder", "tf.layers.dense"]  # fmt: skip
    assert scan_cli.main(["--v1", *PROGRAM]) == 0 and scan_cli.main(["--compat", *PROGRAM]) == 0


DIMENSIONS = SCRIPTS / "dimension_style.py"


def test_v1_shapes_runs_dimension_code_as_written_to_the_numbers_of_the_portable_edit(tmp_path):
    # tests/legacy_scripts/dimension_style.py: shape[i].value, [d.value for d in
    # shape], `.value is None`, Dimension arithmetic in tf.reshape, around
    # tf.layers conv/batch norm, dynamic_rnn and an LSTM cell. As written under
    # --v1_shapes, and edited to tf.dimension_value without it: every loss and
    # the moving mean equal to the last digit (one thread each).
    as_written = run_legacy_script("--v1", tmp_path, "--v1_shapes", str(DIMENSIONS))
    edited = run_legacy_script("--v1", tmp_path, str(DIMENSIONS), "--idiom=dimension_value")
    assert len(as_written) == 13 and as_written == edited
    stopped = run_cli(["--v1", str(DIMENSIONS)], module="tf1_train.compat", cwd=tmp_path, env=QUIET)
    assert stopped.returncode == 1
    assert "AttributeError: 'NoneType' object has no attribute 'value'" in stopped.stderr


def test_the_scan_with_v1_shapes_says_the_value_lines_work():
    source = DIMENSIONS.read_text().splitlines()
    assert_line = next(i for i, s in enumerate(source, 1) if "assert shape[0].value" in s)
    plain = scan.scan([str(DIMENSIONS)], v1=True)
    breaks = [(f.line, f.construct) for f in plain.findings if f.severity == "breaks"]
    assert breaks == [(assert_line, "shape[0].value"), (assert_line, "d.value")]
    shapes = scan.scan([str(DIMENSIONS)], v1=True, v1_shapes=True)
    assert [f.severity for f in shapes.findings if f.rule == "dimension-value"] == ["works"]
    assert not [f for f in shapes.findings if f.severity == "breaks"]
    assert scan_cli.main(["--v1", "--v1_shapes", str(DIMENSIONS)]) == 0
    assert scan_cli.main(["--v1", str(DIMENSIONS)]) == 1
