"""A Keras model trained with eager execution off (scan rule
keras-fit-graph-mode, tf1_train/port/keras_graph_rules.py).
tests/legacy_scripts/keras_graph_mode_style.py calls Keras' six training and
prediction methods; on TensorFlow 1.15.5 each returned numbers (measured
2026-12-07: a History, a float64, an ndarray, two float32 losses, an
ndarray). Through ``python -m tf1_train.compat --v1`` on TensorFlow 2.21
three raise, one raises another way and two return a graph tensor that
nothing runs; the scan reports each line as breaking."""

import os

from conftest import ROOT, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "keras_graph_mode_style.py")


def test_in_graph_mode_keras_3_trains_nothing_and_the_scan_says_so(tmp_path):
    assert run_legacy_script("--v1", tmp_path, SCRIPT) == {
        "fit": "RuntimeError",
        "evaluate": "RuntimeError",
        "predict": "RuntimeError",
        "train_on_batch": "ok SymbolicTensor",  # a loss that is a graph tensor: nothing trained
        "test_on_batch": "ok SymbolicTensor",
        "predict_on_batch": "AttributeError",
    }
    found = [f for f in scan.scan([SCRIPT], v1=True).findings if f.rule == "keras-fit-graph-mode"]
    methods = ("fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch")
    assert [f.construct for f in found] == [f"model.{m}" for m in methods]
    assert {f.severity for f in found} == {"breaks"}
    assert "nothing is trained" in found[3].fix
    assert not [f for f in scan.scan([SCRIPT]).findings if f.rule == "keras-fit-graph-mode"]
