"""``python -m tf1_train.compat --v1``: ``import tensorflow as tf`` in the
program's own files means the v1 API, as on TensorFlow 1.x, so a TF 1.x
program runs with its import lines as they were; ``python -m tf1_train.port
scan --v1`` reads the program the same way."""

import pathlib

from conftest import ROOT, run_cli, run_legacy_script

from tf1_train.compat import _v1_imports
from tf1_train.compat.__main__ import DIMENSION_NOTE
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


def test_a_traceback_under_v1_shows_the_programs_lines(tmp_path):
    # Python prints a traceback's source lines after `import io` from C, with no
    # Python frame for the import hook to read: the hook lets such imports through
    # (a fresh interpreter: the warm server prints its children's tracebacks itself).
    (tmp_path / "stops.py").write_text('import tensorflow as tf\nraise RuntimeError("here")\n')
    args = ["--v1", "stops.py"]
    out = run_cli(args, module="tf1_train.compat", cwd=tmp_path, env=QUIET, fresh=True)
    assert out.returncode == 1
    assert 'line 2, in <module>\n    raise RuntimeError("here")\nRuntimeError: here' in out.stderr


def test_only_the_programs_own_files_are_served_the_v1_api(tmp_path):
    owned = _v1_imports._owner([str(tmp_path)])
    assert owned({"__file__": str(tmp_path / "train.py")})
    assert owned({"__file__": str(tmp_path / "pkg" / "model.py")})
    assert not owned({"__file__": str(tmp_path.parent / "elsewhere.py")})
    venv_file = tmp_path / "venv" / "lib" / "site-packages" / "tf_slim" / "layers.py"
    assert not owned({"__file__": str(venv_file)})  # installed packages keep TF2's API
    assert not owned({"__file__": _v1_imports.__file__})  # and so does tf1_train
    assert not owned({}) and not owned(None)  # the interpreter's prompt
    # exec(compile(src, path, "exec"), {"__name__": "x"}): by the code's file
    assert owned({"__name__": "x"}, str(tmp_path / "lib.py")) and not owned({}, "<string>")
    assert not owned({"__file__": str(venv_file)}, str(tmp_path / "lib.py"))  # __file__ first


def test_the_scan_with_v1_finds_what_the_v1_run_meets():
    # Without --v1, every v1 name under `import tensorflow as tf` is a rename;
    # with it, the program's constructs are the v1 API's, as they run.
    plain = scan.scan(PROGRAM, compat=True)
    v1 = scan.scan(PROGRAM, v1=True)
    assert sum(f.severity == "rename" for f in plain.findings) >= 10
    works = [f for f in v1.findings if f.severity == "works"]
    assert [f.rule for f in v1.findings if f not in works] == ["graph-seed"]  # its set_random_seed
    assert sorted(f.construct.split(" ")[0] for f in works) == [
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
    assert stopped.stderr.rstrip().endswith("note: " + DIMENSION_NOTE)


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


SUBMODULE_IMPORTS = """
import importlib
from tensorflow.train import AdamOptimizer
from tensorflow.gfile import GFile
import tensorflow.summary as summary
from tensorflow.python.ops import nccl_ops
from tensorflow.keras.layers import Dense
found = {
    "from_import": AdamOptimizer.__module__,
    "v1_only_module": GFile.__name__,
    "import_as": hasattr(summary, "FileWriter"),
    "by_name": hasattr(importlib.import_module("tensorflow.train"), "AdamOptimizer"),
    "top_by_name": hasattr(importlib.import_module("tensorflow"), "placeholder"),
    "private": nccl_ops.__name__,
    "keras": Dense.__module__.split(".")[0],
}
print("found = " + repr(found))
"""


def test_submodule_imports_and_importlib_follow_the_v1_api_too(tmp_path):
    # TF 1.x code imports v1 names from submodules and looks classes up by
    # name (StyleGAN's dnnlib resolves "tf.train.AdamOptimizer" through
    # importlib.import_module); TensorFlow 1.15.5 ran every line.
    (tmp_path / "imports.py").write_text(SUBMODULE_IMPORTS)
    found = eval(run_legacy_script("--v1", tmp_path, "imports.py")["found"])
    assert found == {
        "from_import": "tensorflow.python.training.adam",
        "v1_only_module": "GFile",
        "import_as": True,
        "by_name": True,
        "top_by_name": True,
        "private": "tensorflow.python.ops.nccl_ops",  # TensorFlow's own, as before
        "keras": "keras",  # tensorflow.keras: Keras 3's, as before
    }
    plain = run_cli(["imports.py"], module="tf1_train.compat", cwd=tmp_path, env=QUIET)
    assert "cannot import name 'AdamOptimizer' from 'tensorflow.train'" in plain.stderr
