"""A Keras cell given to TF 1.x's dynamic_rnn (scan rule keras-cell-in-v1-rnn,
tf1_train/port/keras_cell_rules.py), held against what the runner does with
tests/legacy_scripts/keras_cell_rnn_style.py: as written the graph build
raises TypeError under --v1; with the scan's TF 1.x cell it gives the shapes
TF 1.15.5 gave with the Keras cell (measured: (1, 5, 2) and (1, 2))."""

import os

from conftest import COMPAT, ROOT, run_cli, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "keras_cell_rnn_style.py")
TF_1_15_5 = {"outputs": "(1, 5, 2)", "state": "(1, 2)"}


def _line(text: str) -> int:
    with open(SCRIPT) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def test_as_written_it_raises_and_the_scan_says_it_breaks_there():
    out = run_cli(
        ["--v1", SCRIPT, "--cell=keras"], module=COMPAT, env={"TF_CPP_MIN_LOG_LEVEL": "2"}
    )
    assert "get_initial_state() got an unexpected keyword argument 'inputs'" in out.stderr
    for options in ({"v1": True}, {"compat": True}, {}):
        found = [f for f in scan.scan([SCRIPT], **options).findings if f.rule.startswith("keras-c")]
        assert [(f.line, f.severity) for f in found] == [(_line("= tf.nn.dynamic_rnn("), "breaks")]
        assert found[0].fix.startswith("tf.compat.v1.nn.rnn_cell.BasicRNNCell")


def test_the_scans_tf1_cell_runs_to_tf_1_15_5s_shapes(tmp_path):
    assert run_legacy_script("--v1", tmp_path, SCRIPT, "--cell=v1") == TF_1_15_5
