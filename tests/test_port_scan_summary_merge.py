"""TF 2's tf.summary ops in a v1 graph whose merge_all() a run fetches (scan
rule tf2-summary-merge-fetched, tf1_train/port/summary_rules.py), held
against what the runner does with tests/legacy_scripts/summary_merge_style.py
(YOLOv3's train.py): without --v1 it raises TypeError at the fetch, with
--v1 it prints what TF 1.15.5 printed (measured: ``merged = string``,
``loss = 3.0000``)."""

import os

from conftest import COMPAT, ROOT, run_cli, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "summary_merge_style.py")
TF_1_15_5 = {"merged": "string", "loss": "3.0000"}


def _rules(**options):
    found = scan.scan([SCRIPT], **options).findings
    return {(f.rule, f.severity) for f in found if f.rule.startswith("tf2-summary")}


def test_without_v1_the_fetch_of_the_merged_summaries_raises_and_the_scan_says_it_breaks():
    out = run_cli([SCRIPT], module=COMPAT, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode != 0 and "merged = None" in out.stdout
    assert 'TypeError: Argument `fetch` = None has invalid type "NoneType"' in out.stderr
    assert _rules(compat=True) == _rules() == {("tf2-summary-merge-fetched", "breaks")}


def test_with_v1_it_runs_as_on_tf_1_15_5_and_the_scan_reports_nothing(tmp_path):
    assert run_legacy_script("--v1", tmp_path, SCRIPT) == TF_1_15_5
    assert _rules(v1=True) == set()


def test_merged_summaries_not_fetched_keep_the_changes_numbers_finding(tmp_path):
    source = open(SCRIPT).read().replace("self.write_op, self.loss", "self.loss")
    source = source.replace("_, summary, loss =", "_, loss =")
    (tmp_path / "a.py").write_text(source)
    found = scan.scan([str(tmp_path / "a.py")], compat=True).findings
    assert {(f.rule, f.severity) for f in found if f.rule.startswith("tf2-summary")} == {
        ("tf2-summary-in-v1-graph", "changes numbers")
    }
