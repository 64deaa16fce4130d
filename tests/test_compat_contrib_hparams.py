"""tf.contrib.training.HParams and parse_values after
tf1_train.compat.install() (tf1_train/compat/_contrib_hparams.py).

Held to TF 1.15's own class: tests/goldens/hparams.json holds the outcome
(the value's repr, or the error's type and message) of every operation of
tests/hparams_cases.py's programs run with TF 1.15's ``hparam.py``
(scripts/make_hparams_goldens.py); ours must give the same. A Tacotron-style
program configured by HParams trains through ``python -m tf1_train.compat``
with its ``--hparams`` overrides and resumes with the ones it saved.
"""

import json
import pathlib

import hparams_cases
import pytest
import tensorflow as tf

from tests.conftest import run_legacy_script
from tf1_train.compat import _contrib_hparams
from tf1_train.compat._contrib_hparams import HParams

GOLDENS = json.loads((pathlib.Path(__file__).parent / "goldens" / "hparams.json").read_text())
SCRIPT = str(pathlib.Path(__file__).parent / "legacy_scripts" / "hparams_style.py")


@pytest.mark.parametrize("name", sorted(hparams_cases.CASES))
def test_every_operation_has_tf_1_15s_outcome(name):
    kwargs, operations = hparams_cases.CASES[name]
    ours = hparams_cases.run(HParams, kwargs, operations)
    for op, got, want in zip(operations, ours, GOLDENS["cases"][name]):
        assert got == want, op
    assert len(ours) == len(GOLDENS["cases"][name])


def test_the_goldens_cover_every_case_and_each_kind_of_outcome():
    assert sorted(GOLDENS["cases"]) == sorted(hparams_cases.CASES)
    outcomes = [o for case in GOLDENS["cases"].values() for o in case]
    kinds = {o[1] for o in outcomes if o[0] == "error"}
    assert {"ValueError", "KeyError"} <= kinds and sum(o[0] == "ok" for o in outcomes) > 60


def test_contrib_training_serves_them_and_refuses_the_rest_in_one_line(installed):
    from tensorflow.contrib.training import HParams as imported
    from tensorflow.contrib.training import parse_values

    assert imported is HParams and tf.contrib.training.HParams is HParams
    assert parse_values is _contrib_hparams.parse_values
    assert parse_values("a=1,b=[x,y]", {"a": int, "b": str}) == {"a": 1, "b": ["x", "y"]}
    with pytest.raises(AttributeError, match="stratified_sample.*tf.data"):
        tf.contrib.training.stratified_sample  # noqa: B018


def test_hparamdef_protos_are_one_line_saying_what_to_pass():
    with pytest.raises(ValueError, match="HParamDef.*keyword arguments"):
        HParams(hparam_def=b"\n\x01x", a=1)
    with pytest.raises(ValueError, match="HParamDef"):
        HParams(a=1).to_proto()


def test_a_program_configured_by_hparams_trains_with_its_overrides_and_resumes(tmp_path):
    out = run_legacy_script(SCRIPT, tmp_path, "--hparams=learning_rate=0.1,hidden_units=[24,12,6]",
                            f"--train_dir={tmp_path}")  # fmt: skip
    chosen = json.loads(out["hparams"])
    assert chosen["learning_rate"] == 0.1 and chosen["hidden_units"] == [24, 12, 6]
    assert out["kernels"] == "[[4, 24], [24, 12], [12, 6], [6, 3]]"
    assert float(out["last_loss"]) < 0.5 * float(out["first_loss"])
    saved = json.loads((tmp_path / "hparams.json").read_text())
    assert saved == chosen
    again = run_legacy_script(SCRIPT, tmp_path, "--hparams=activation=tanh",
                              f"--train_dir={tmp_path}", "--steps=5")  # fmt: skip
    resumed = json.loads(again["hparams"])  # its saved values, then the new override
    assert resumed == {**chosen, "activation": "tanh"}
    assert again["kernels"] == out["kernels"]
