"""A variable fed through ``feed_dict`` (scan rules feed-variable and
feed-variable-v2, PORTING P22): TF 1.x's reference variables took the fed
value, TF 2's resource variables ignore it without an error.
tests/legacy_scripts/fed_learning_rate_style.py feeds its learning rate, a
variable made at 0.0, at each step: on TensorFlow 1.15.5 it trains from
2.547330 to 0.026805 in 20 steps (measured); on TF 2.21 it trains nothing,
and under ``--v1_variables`` it prints TF 1.15.5's numbers again."""

import os

from conftest import ROOT, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "fed_learning_rate_style.py")
TF_1_15_5 = {"first_loss": "2.547330", "last_loss": "0.026805", "learning_rate": "0.000000"}


def test_a_fed_learning_rate_variable_trains_nothing_and_the_scan_says_so(tmp_path):
    as_written = run_legacy_script("--v1", tmp_path, SCRIPT)
    assert as_written["first_loss"] == as_written["last_loss"] == TF_1_15_5["first_loss"]
    found = [f for f in scan.scan([SCRIPT], v1=True).findings if f.rule.startswith("feed-")]
    assert [(f.rule, f.severity, f.line) for f in found] == [
        ("feed-variable", "changes numbers", _line("model.learning_rate: 0.5"))
    ]


def test_under_v1_variables_the_feed_takes_and_the_numbers_are_tf_1_15_5s(tmp_path):
    assert run_legacy_script("--v1", tmp_path, "--v1_variables", SCRIPT) == TF_1_15_5
    found = [f for f in scan.scan([SCRIPT], v1=True, v1_variables=True).findings]
    assert [f.severity for f in found if f.rule == "feed-variable"] == ["works"]


def _line(text: str) -> int:
    with open(SCRIPT) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)
