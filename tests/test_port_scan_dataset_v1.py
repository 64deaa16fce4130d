"""TF 1.x's dataset API TF 2's tf.data dropped (scan rule dataset-v1-api,
tf1_train/port/dataset_rules.py), held against what the runner does with
tests/legacy_scripts/dataset_iterator_style.py (Kyubyong's transformer):
without --v1 it raises AttributeError at ``tf.data.Iterator.from_structure``,
with the scan's renames applied it prints what TF 1.15.5 printed, and with
--v1 it does so as written."""

import os

from conftest import COMPAT, ROOT, run_cli, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "dataset_iterator_style.py")
# measured on TF 1.15.5 (the pipeline as written)
TF_1_15_5 = dict(classes="Tensor", structure="[[1 2]]", one_shot="[[10 20]]")
TF_1_15_5["initializable"] = "[[3 4]]"


def _found(path, **options):
    return [f for f in scan.scan([path], **options).findings if f.rule == "dataset-v1-api"]


def test_as_written_it_raises_and_the_scans_renames_make_it_run_as_on_tf_1_15_5(tmp_path):
    out = run_cli([SCRIPT], module=COMPAT, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert "type object 'IteratorBase' has no attribute 'from_structure'" in out.stderr
    found = _found(SCRIPT, compat=True)
    assert [(f.line, f.severity) for f in found] == [(14, "rename")] * 3 + [
        (17, "rename"),
        (18, "rename"),
        (19, "rename"),
    ]
    source = open(SCRIPT).read()
    for f in found:  # each fix's new spelling in place of the construct (a method's call too)
        new = f.fix.split(": TF 2", 1)[0]
        call = f.construct + "()"
        source = source.replace(call if call in source else f.construct, new)
    fixed = tmp_path / "fixed.py"
    fixed.write_text(source)
    assert run_legacy_script(str(fixed), tmp_path) == TF_1_15_5
    assert _found(str(fixed), compat=True) == []


def test_with_v1_it_runs_as_written_and_the_scan_reports_nothing(tmp_path):
    assert run_legacy_script("--v1", tmp_path, SCRIPT) == TF_1_15_5
    assert _found(SCRIPT, v1=True) == []
