"""``v += x`` on a variable (scan rule variable-iadd): TF 1.x's reference
variable returned a new tensor, TF 2's resource variable raises. The lines
the scan reports are the lines TensorFlow raises on; ``--v1_variables``
makes them work, as the scan then says; PointNet's manner
(tests/legacy_scripts/pointnet_style.py) runs unmodified under it, and the
scan's fix gives the same numbers on resource variables."""

import pathlib
import subprocess
import traceback

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_cli

from tf1_train.port import scan, scan_cli

SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "pointnet_style.py"
CASES = """\
import numpy as np
import tensorflow as tf2
import tensorflow.compat.v1 as tf
import tf_slim as slim


def _variable_on_cpu(name, shape):
    with tf.device("/cpu:0"):
        var = tf.get_variable(name, shape, initializer=tf.zeros_initializer())
    return var


def _variable_with_weight_decay(name, shape):
    return _variable_on_cpu(name, shape)


def get_variable_iadd():
    biases = tf.get_variable("biases", [9], initializer=tf.zeros_initializer())
    biases += tf.constant(np.eye(3).flatten(), dtype=tf.float32)
    return biases


def v1_variable_isub():
    w = tf.Variable(tf.zeros([2]))
    w -= 1.0
    return w


def helper_imul():
    v = _variable_on_cpu("v", [2])
    v *= 2.0
    return v


def helper_of_helper_idiv():
    v = _variable_with_weight_decay("d", [2])
    v /= 2.0
    return v


def tf2_variable_ipow():
    p = tf2.Variable(tf.ones([2]))
    p **= 2.0
    return p


def slim_variable_iadd():
    s = slim.variable("s", shape=[2], initializer=tf.zeros_initializer())
    s += 1.0
    return s


def second_iadd_is_on_a_tensor():
    b = tf.get_variable("b2", [2], initializer=tf.zeros_initializer())
    b += 1.0
    b += 2.0
    return b


def rebound_first():
    t = tf.get_variable("t", [2], initializer=tf.zeros_initializer())
    t = t * 2.0
    t += 1.0
    return t


def reference_variable():
    r = tf.get_variable("r", [2], initializer=tf.zeros_initializer(), use_resource=False)
    r += 1.0
    return r


def floor_division():
    f = tf.get_variable("f", [2], initializer=tf.zeros_initializer())
    f //= 2.0
    return f


def a_parameter(v=2.0):
    v += 1.0
    return v


def a_tensor():
    x = tf.zeros([2])
    x += 1.0
    return x
"""


def _raising_lines(path: pathlib.Path) -> list:
    """Run each function of the file in a graph of its own: the line of the
    file each one raises on (TF 2.21's resource variables)."""
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    lines = []
    for name, function in namespace.items():
        if callable(function) and not name.startswith("_") and function.__module__ is None:
            with tf.Graph().as_default():
                try:
                    function()
                except RuntimeError as e:
                    frames = traceback.extract_tb(e.__traceback__)
                    ours = [f.lineno for f in frames if f.filename == str(path)]
                    lines.append(ours[-1])
    return sorted(lines)


def test_the_lines_the_scan_reports_are_the_lines_that_raise(tmp_path):
    path = tmp_path / "cases.py"
    path.write_text(CASES)
    found = [f for f in scan.scan([str(path)]).findings if f.rule.startswith("variable-iadd")]
    assert all(f.severity == "breaks" for f in found)
    assert [f.line for f in found] == _raising_lines(path)
    assert len(found) == 7  # six makers and helpers, and the first of two on one name
    source = CASES.splitlines()
    assert {source[f.line - 1].strip().split()[1] for f in found} == {"+=", "-=", "*=", "/=", "**="}
    v2 = [f for f in found if f.rule == "variable-iadd-v2"]
    assert [source[f.line - 1].strip() for f in v2] == ["p **= 2.0"]


def test_under_v1_variables_the_v1_makers_work_and_tf2s_variable_does_not(tmp_path):
    path = tmp_path / "cases.py"
    path.write_text(CASES)
    found = [f for f in scan.scan([str(path)], v1_variables=True).findings]
    assert {f.severity for f in found if f.rule == "variable-iadd"} == {"works"}
    assert [f.severity for f in found if f.rule == "variable-iadd-v2"] == ["breaks"]
    freeze = tmp_path / "freeze.py"
    freeze.write_text("for node in gd.node:\n    if node.op == 'RefSwitch':\n        pass\n")
    rules = {f.rule: f.severity for f in scan.scan([str(freeze)], v1_variables=True).findings}
    assert rules == {"freeze-ref-ops": "works"}
    assert scan_cli.main(["--v1_variables", str(freeze)]) == 0
    assert scan_cli.main([str(freeze)]) == 1


def _run(*options: str) -> subprocess.CompletedProcess:
    return run_cli(["--v1", "--v1_shapes", *options], module="tf1_train.compat",
                   env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip


def _values(out: subprocess.CompletedProcess) -> dict:
    assert out.returncode == 0, out.stderr[-3000:]
    pairs = (line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)
    return {k: np.array(v.split(","), dtype=np.float64) for k, v in pairs}


@pytest.fixture(scope="module")
def reference() -> dict:
    """pointnet_style.py as written, under TF 1.x's reference variables."""
    return _values(_run("--v1_variables", str(SCRIPT)))


def test_pointnet_style_runs_unmodified_under_v1_variables(reference):
    assert [k for k in reference if k.startswith("loss_")] == [f"loss_{i}" for i in range(6)]
    shadows = [k for k in reference if k.endswith("ExponentialMovingAverage")]
    assert len(shadows) == 4  # two batch norms' moving means and variances, made in tf.cond
    assert all(np.abs(reference[k]).max() > 0 for k in shadows)  # updated while training


def test_without_it_the_line_the_scan_reports_raises():
    out = _run(str(SCRIPT))
    assert out.returncode != 0 and "RuntimeError: `variable += value`" in out.stderr
    line = int(out.stderr.split(f'File "{SCRIPT}", line ')[-1].split(",")[0])
    found = scan.scan([str(SCRIPT)], v1=True, v1_shapes=True).findings
    assert [(f.line, f.severity) for f in found if f.severity == "breaks"] == [(line, "breaks")]
    found = scan.scan([str(SCRIPT)], v1=True, v1_shapes=True, v1_variables=True).findings
    assert not [f for f in found if f.severity == "breaks"]


def test_the_scans_fix_gives_tf1s_numbers_on_resource_variables(reference):
    fixed = _values(_run(str(SCRIPT), "--fixed"))
    assert sorted(fixed) == sorted(reference)
    for name, want in reference.items():
        np.testing.assert_allclose(fixed[name], want, rtol=1e-5, atol=1e-6, err_msg=name)
