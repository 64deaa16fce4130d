"""``python -m tf1_train.compat --v1_variables``: TF 1.x's reference
variables and control flow, so graph rewrites that name their ops run as on
TF 1.x. A facenet-style export (tests/legacy_scripts/freeze_bn_style.py:
tf-slim batch norm under a placeholder phase, the freeze scripts' RefSwitch /
AssignSub fix) freezes a graph that computes the session's numbers; without
the option the same script's frozen graph raises."""

import pathlib
import subprocess

from conftest import ROOT, run_cli

SCRIPT = str(pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "freeze_bn_style.py")


def _run(script: str, *options: str, cwd=None) -> subprocess.CompletedProcess:
    return run_cli([*options, script], module="tf1_train.compat", cwd=cwd,
                   env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip


def _values(out: subprocess.CompletedProcess) -> dict:
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)


def test_the_freeze_scripts_fix_freezes_the_sessions_numbers_under_v1_variables():
    got = _values(_run(SCRIPT, "--v1", "--v1_variables"))
    assert int(got["ref_switch_nodes"]) == 4  # two batch norms, moving mean and variance
    assert float(got["max_difference_False"]) == 0.0
    assert float(got["max_difference_True"]) == 0.0


def test_without_it_the_same_scripts_frozen_graph_raises():
    out = _run(SCRIPT, "--v1")
    assert out.returncode != 0
    assert "ref_switch_nodes = 0" in out.stdout
    assert "expected type resource" in out.stderr


def test_variables_have_tf1_read_tensors_and_cond_is_switch_and_merge(tmp_path):
    # What graph-walking TF1 code keys on: a variable's '/read' tensor, the
    # Switch and Merge ops of a cond.
    (tmp_path / "prog.py").write_text(
        "import tensorflow as tf\n"
        "v = tf.get_variable('w', [2], initializer=tf.ones_initializer())\n"
        "p = tf.placeholder(tf.bool)\n"
        "y = tf.cond(p, lambda: v * 2.0, lambda: v)\n"
        "ops = {o.type for o in tf.get_default_graph().get_operations()}\n"
        "print('variable =', type(v).__name__)\n"
        "print('read =', v.value().name)\n"
        "print('cond_ops =', sorted(ops & {'Switch', 'Merge', 'If', 'StatelessIf'}))\n"
    )
    got = _values(_run("prog.py", "--v1", "--v1_variables", cwd=tmp_path))
    assert got == {"variable": "RefVariable", "read": "w/read:0",
                   "cond_ops": "['Merge', 'Switch']"}  # fmt: skip
    plain = _values(_run("prog.py", "--v1", cwd=tmp_path))
    assert plain["variable"] == "ResourceVariable" and "If" in plain["cond_ops"]
