"""tf.contrib.rnn's cells, legacy_seq2seq, crf and layers after
tf1_train.compat.install(), held to TensorFlow 1.15.5 itself.

Each program of tests/contrib_tf115_cases.py must make the variables TF
1.15.5 made (names and shapes, so its checkpoints restore) and compute its
outputs, gradients and moving statistics, within float32 rounding: the
goldens in tests/goldens/contrib_tf115.npz come from TF 1.15.5 on resource
variables (scripts/make_contrib_tf115_goldens.py).
"""

import json
import os
import types

import contrib_tf115_cases as cases
import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT

GOLDEN = os.path.join(ROOT, "tests", "goldens", "contrib_tf115.npz")


@pytest.fixture(scope="module")
def golden() -> dict:
    with np.load(GOLDEN) as f:
        return {k: f[k] for k in f.files}


def _contrib():
    names = {}
    exec(  # as a user's module imports them
        "from tensorflow.contrib import rnn, legacy_seq2seq, crf, layers", names
    )
    return types.SimpleNamespace(
        rnn=names["rnn"], seq2seq=names["legacy_seq2seq"], crf=names["crf"], layers=names["layers"]
    )


def test_the_goldens_are_tf_1_15_5s_and_every_case_has_them(golden):
    assert str(golden["version"]) == "1.15.5"
    assert sorted({k.split("|")[0] for k in golden if "|" in k}) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_computes_what_tf_1_15_5_computed(installed, golden, name):
    arrays, variables = cases.run(_contrib(), tf.compat.v1, cases.CASES[name])
    assert variables == json.loads(str(golden[f"{name}|variables"]))
    want = {k.split("|", 1)[1]: v for k, v in golden.items() if k.startswith(name + "|")}
    del want["variables"]
    assert sorted(arrays) == sorted(want)
    for key, expected in want.items():
        assert arrays[key].shape == expected.shape, key
        np.testing.assert_allclose(arrays[key], expected, rtol=1e-5, atol=2e-5, err_msg=key)
