"""Kyubyong-Tacotron-style training (tests/legacy_scripts/supervisor_step_style.py,
ours: ``tf.Variable(0, name='global_step')`` and a ``tf.train.Supervisor``
that finds it by name) under ``python -m tf1_train.compat --v1``: the
Supervisor has the step, its summaries land at steps 5, 10, 15, 20 and its
checkpoint is ``model.ckpt-20``. Before tf1_train.compat found the variable,
the Supervisor warned "Found 'global_step' is not an int type" and wrote
every summary at step 0."""

import glob
import os

import tensorflow as tf
from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "supervisor_step_style.py")


def test_the_supervisor_counts_the_named_step(tmp_path):
    proc = run_cli(["--v1", SCRIPT, str(tmp_path)], module="tf1_train.compat", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "supervisor step global_step:0" in proc.stdout
    assert "is not an int type" not in proc.stderr
    steps = []
    for path in glob.glob(str(tmp_path / "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            steps += [event.step for v in event.summary.value if v.tag == "train/loss"]
    assert sorted(steps) == [5, 10, 15, 20]
    assert os.path.exists(tmp_path / "model.ckpt-20.index")
