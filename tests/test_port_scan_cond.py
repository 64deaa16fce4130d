"""Variables made inside a ``tf.cond`` branch (scan rule cond-branch-variable,
tf1_train/port/cond_rules.py; PORTING.md's row on an optimizer applied in a
cond branch). tests/legacy_scripts/cond_optimizer_style.py applies Adam in a
branch and wraps another Adam in ``enable_mixed_precision_graph_rewrite``;
TF 1.15.5 printed TF_1_15_5's names (measured 2026-12-07). TF 2's conds drop
the cond's name from Adam's own variables, so TF 1.x's checkpoint does not
restore; ``--v1_control_flow`` names them as TF 1.x did."""

import os

from conftest import ROOT, run_cli

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "cond_optimizer_style.py")
COMPAT = "tf1_train.compat"
TF_1_15_5 = [
    "w",
    "cond/beta1_power",
    "cond/beta2_power",
    "w/Adam",
    "w/Adam_1",
    "amp/v",
    "amp/current_loss_scale",
    "amp/good_steps",
    "amp/cond_1/beta1_power",
    "amp/cond_1/beta2_power",
    "amp/amp/v/Adam",
    "amp/amp/v/Adam_1",
]


def _names(tmp_path, *options) -> list:
    out = run_cli([*options, SCRIPT], module=COMPAT, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    return [line.split(" = ", 1)[1] for line in out.stdout.splitlines() if " = " in line]


def _lines() -> list:
    with open(SCRIPT) as f:
        text = f.read().splitlines()
    apply = next(n for n, line in enumerate(text, 1) if "opt.apply_gradients" in line)
    rewrite = next(n for n, line in enumerate(text, 1) if "graph_rewrite(" in line)
    return [apply, rewrite]


def test_adam_in_a_cond_branch_is_named_as_tf_1_15_5_named_it_only_under_v1_control_flow(
    tmp_path,
):
    assert _names(tmp_path, "--v1", "--v1_control_flow") == TF_1_15_5
    as_written = _names(tmp_path, "--v1")
    assert "cond/beta1_power" not in as_written and "beta1_power" in as_written
    found = [f for f in scan.scan([SCRIPT], v1=True).findings if f.rule == "cond-branch-variable"]
    assert [(f.line, f.severity) for f in found] == [(n, "breaks") for n in _lines()]
    found = scan.scan([SCRIPT], v1=True, v1_control_flow=True).findings
    assert {f.severity for f in found if f.rule == "cond-branch-variable"} == {"works"}
