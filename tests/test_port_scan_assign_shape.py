"""An assign that grows a variable (scan rule assign-validate-shape,
tf1_train/port/assign_rules.py). tests/legacy_scripts/grow_variable_style.py
keeps each batch's scores in a variable, as SSD-Tensorflow's streaming mAP
does: TensorFlow 1.15.5 prints 0.5 0.25 0.75 (measured 2026-12-07); on 2.21
the run raises, under ``--v1_variables`` it gives 1.15.5's values, and the
scan's edit (the variable made with validate_shape=False) gives them on
resource variables too."""

import os

import numpy as np
import tensorflow as tf
from conftest import ROOT, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "grow_variable_style.py")
TF_1_15_5 = {"grown": "0.5 0.25 0.75"}


def test_as_written_it_raises_and_under_v1_variables_it_grows_as_on_tf_1_15_5(tmp_path):
    assert run_legacy_script("--v1", tmp_path, SCRIPT) == {"error": "InvalidArgumentError"}
    assert run_legacy_script("--v1", tmp_path, "--v1_variables", SCRIPT) == TF_1_15_5
    found = [f for f in scan.scan([SCRIPT], v1=True).findings if f.rule == "assign-validate-shape"]
    assert [(f.severity, f.construct) for f in found] == [("breaks", "tf.assign")]
    assert found[0].fix.startswith("make kept with tf.Variable(..., validate_shape=False)")
    fixed = scan.scan([SCRIPT], v1=True, v1_variables=True).findings
    assert [f.severity for f in fixed if f.rule == "assign-validate-shape"] == ["works"]


def test_the_scans_edit_grows_a_resource_variable(tmp_path):
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        scores = v1.placeholder(tf.float32, [None])
        kept = v1.Variable(tf.zeros([0]), trainable=False, validate_shape=False)
        update = v1.assign(kept, tf.concat([kept, scores], axis=0), validate_shape=False)
        with v1.Session() as sess:
            sess.run(kept.initializer)
            sess.run(update, {scores: [0.5, 0.25]})
            grown = sess.run(update, {scores: [0.75]})
    np.testing.assert_array_equal(grown, [0.5, 0.25, 0.75])
    edited = tmp_path / "edited.py"
    edited.write_text(
        open(SCRIPT).read().replace('name="kept"', 'name="kept", validate_shape=False')
    )
    assert not [
        f for f in scan.scan([str(edited)], v1=True).findings if f.rule.startswith("assign-")
    ]
