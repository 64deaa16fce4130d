"""TF 1.x's canned DNN, Linear and DNNLinearCombined Estimators after
tf1_train.compat.install(), held to tensorflow-estimator's own Keras 2 logit
functions (goldens from scripts/make_estimator_goldens.py under tf_keras)."""

import json
import pathlib
import shutil

import estimator_canned_cases as cases
import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT

GOLDENS = pathlib.Path(ROOT) / "tests" / "goldens" / "estimator_canned"


@pytest.mark.parametrize("name", cases.CASES)
def test_a_canned_estimator_trains_as_tensorflow_estimators_own(installed, name, tmp_path):
    # Same step-1 checkpoint (so the same variable names and shapes, or the
    # restore fails), 20 more steps on the same batches, then evaluate and predict.
    golden = json.loads((GOLDENS / name / "golden.json").read_text())
    for path in (GOLDENS / name).glob("*"):
        if path.name != "golden.json":
            shutil.copy(path, tmp_path / path.name)
    ours = cases.go_on(tf.compat.v1, name, str(tmp_path))
    assert sorted(ours["variables"]) == sorted(golden["variables"])
    for variable, value in golden["variables"].items():
        np.testing.assert_allclose(ours["variables"][variable], value, rtol=1e-5, atol=1e-6,
                                   err_msg=variable)  # fmt: skip
    assert sorted(ours["metrics"]) == sorted(golden["metrics"])
    for metric, value in golden["metrics"].items():
        np.testing.assert_allclose(ours["metrics"][metric], value, rtol=1e-5, err_msg=metric)
    assert sorted(ours["predictions"]) == sorted(golden["predictions"])
    for key, value in golden["predictions"].items():
        np.testing.assert_allclose(ours["predictions"][key], value, rtol=1e-5, atol=1e-6,
                                   err_msg=key)  # fmt: skip
    assert golden["metrics"]["global_step"] == 1 + cases.STEPS
