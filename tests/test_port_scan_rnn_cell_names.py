"""``tf.nn.rnn_cell`` under the runner without ``--v1``: TF 2's ``tf.nn``
has no ``rnn_cell`` (install() serves the v1 API's), so the line raises
``AttributeError`` and the scan says rename, not works (DeepSpeech's
``tf.nn.rnn_cell.LSTMStateTuple`` in its export, 2026-12-07); under
``--v1`` it runs and the scan says works."""

from conftest import COMPAT, run_cli

from tf1_train.port import scan

PROGRAM = "import tensorflow as tf\nprint(tf.nn.rnn_cell.LSTMStateTuple(1, 2))\n"


def test_tf_nn_rnn_cell_is_a_rename_without_v1_and_works_with_it(tmp_path):
    path = tmp_path / "state.py"
    path.write_text(PROGRAM)
    out = run_cli([str(path)], module=COMPAT, cwd=tmp_path)
    assert out.returncode != 0 and "has no attribute 'rnn_cell'" in out.stderr
    out = run_cli(["--v1", str(path)], module=COMPAT, cwd=tmp_path)
    assert out.returncode == 0 and "LSTMStateTuple(c=1, h=2)" in out.stdout, out.stderr[-2000:]
    for options, severity in (({"compat": True}, "rename"), ({"v1": True}, "works")):
        found = [f for f in scan.scan([str(path)], **options).findings if f.line == 2]
        assert [(f.rule, f.severity) for f in found] == [("rnn-cell", severity)]
    (finding,) = [f for f in scan.scan([str(path)], compat=True).findings if f.line == 2]
    assert finding.fix.startswith("tf.compat.v1.nn.rnn_cell.LSTMStateTuple; then: works")
