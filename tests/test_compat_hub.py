"""TensorFlow Hub's TF1 format on TensorFlow 2.21 (tf1_train/port/hub_rules.py,
PORTING.md's row). tensorflow-hub 0.16 removed ``hub.Module`` and the rest
of it; 0.15.0 (setup.py's test extra) imports only after
tf1_train.compat.install(). tests/goldens/hub_tf115_module is a module
TensorFlow 1.15.5 exported with tensorflow-hub 0.8.0
(scripts/make_hub_tf115_module.py), with what 1.15.5 computed from it."""

import json
import os

import pytest
from conftest import ROOT, run_legacy_script

from tf1_train.port import program, scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "hub_module_style.py")
GOLDEN = os.path.join(ROOT, "tests", "goldens", "hub_tf115_module")


def test_a_module_tf_1_15_5_exported_loads_computes_and_fine_tunes_as_there(tmp_path):
    with open(os.path.join(GOLDEN, "expected.json")) as f:
        expected = json.load(f)
    out = run_legacy_script("--v1", tmp_path, SCRIPT, GOLDEN, tmp_path / "exported")
    got = {k: json.loads(v) for k, v in out.items()}
    for key in ("ids", "variables", "signatures"):
        assert got[key] == expected[key]
    for row, want in zip(got["outputs"], expected["outputs"]):
        assert row == pytest.approx(want, abs=1e-6)
    assert got["fine_tuned_losses"] == pytest.approx(expected["fine_tuned_losses"], rel=1e-5)
    assert got["exported"] == [[16.0, 22.0]]  # [1, 2, 3] @ [[0, 1], [2, 3], [4, 5]]


def test_the_scan_says_it_works_through_compat_with_hub_0_15_and_breaks_otherwise(monkeypatch):
    def found(**options):
        findings = scan.scan([SCRIPT], **options).findings
        return [f.severity for f in findings if f.rule == "hub-tf1-format"]

    assert found(v1=True) == ["works"]  # a `works` is said once per file
    assert found() == ["breaks"] * 6  # without install(): Module (4 uses), add_signature, ...
    monkeypatch.setattr(program, "tf1_hub_installed", lambda: False)  # tensorflow-hub 0.16
    assert found(v1=True) == ["breaks"] * 6
