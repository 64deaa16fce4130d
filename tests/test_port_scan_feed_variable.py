"""A variable fed through ``feed_dict`` (scan rules feed-variable and
feed-variable-v2, PORTING P22): TF 1.x's reference variables took the fed
value, TF 2's resource variables ignore it without an error.
tests/legacy_scripts/fed_learning_rate_style.py feeds its learning rate, a
variable made at 0.0, at each step: on TensorFlow 1.15.5 it trains from
2.547330 to 0.026805 in 20 steps (measured); on TF 2.21 it trains nothing.
Through ``python -m tf1_train.compat`` it prints TF 1.15.5's numbers again, the
feed sent to the variable's reads (tf1_train/compat/_variable_feeds.py) or,
under ``--v1_variables``, taken by TF 1.x's reference variable."""

import os

import numpy as np
import tensorflow as tf
from conftest import ROOT, run_legacy_script

from tf1_train.compat import _variable_feeds
from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "fed_learning_rate_style.py")
TF_1_15_5 = {"first_loss": "2.547330", "last_loss": "0.026805", "learning_rate": "0.000000"}


def _fed(feed_value, cond=False):
    """``2 * v`` run with ``v`` fed, in a v1 graph of its own (a resource variable)."""
    with tf.Graph().as_default():
        v = tf.compat.v1.Variable(0.01, name="kl_weight", trainable=False)
        if cond:
            doubled = tf.compat.v1.cond(tf.constant(True), lambda: 2.0 * v, lambda: v)
        else:
            doubled = 2.0 * v
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            return sess.run(doubled, {v: feed_value})


def test_tensorflow_2_ignores_the_feed_of_a_resource_variable():
    assert np.isclose(_fed(0.5), 0.02)  # TF 1.15.5: 1.0 (sketch-rnn's KL weight)


def test_after_install_the_feed_reaches_its_reads_and_names_those_it_cannot(
    installed, capsys, monkeypatch
):
    monkeypatch.setattr(_variable_feeds, "_noted", set())
    assert np.isclose(_fed(0.5), 1.0) and capsys.readouterr().err == ""
    assert np.isclose(_fed(0.5, cond=True), 0.02)  # read inside the cond's function
    (note,) = capsys.readouterr().err.splitlines()
    assert note.startswith("note: feed_dict's value for the variable kl_weight:0") and "If" in note


def test_uninstall_puts_tensorflows_feeds_back():
    import tf1_train.compat

    tf1_train.compat.install()
    tf1_train.compat.uninstall()
    assert np.isclose(_fed(0.5), 0.02)


def test_through_the_runner_it_trains_as_on_tf_1_15_5_and_the_scan_names_the_port(tmp_path):
    assert run_legacy_script("--v1", tmp_path, SCRIPT) == TF_1_15_5
    line = _line("model.learning_rate: 0.5")
    port = [f for f in scan.scan([SCRIPT]).findings if f.rule.startswith("feed-")]
    assert [(f.severity, f.line) for f in port] == [("changes numbers", line)]  # for a port
    runner = [f for f in scan.scan([SCRIPT], v1=True).findings if f.rule.startswith("feed-")]
    assert [(f.severity, f.line) for f in runner] == [("works", line)]


def test_under_v1_variables_the_feed_takes_and_the_numbers_are_tf_1_15_5s(tmp_path):
    assert run_legacy_script("--v1", tmp_path, "--v1_variables", SCRIPT) == TF_1_15_5
    found = [f for f in scan.scan([SCRIPT], v1=True, v1_variables=True).findings]
    assert [f.severity for f in found if f.rule == "feed-variable"] == ["works"]


def _line(text: str) -> int:
    with open(SCRIPT) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)
