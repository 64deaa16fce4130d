"""tf.contrib.seq2seq after tf1_train.compat.install(), held to TF 1.15.

Every program of tests/contrib_seq2seq_cases*.py runs on tf1_train.compat's
module and must make the variables TF 1.15's own source made (names and
shapes, so TF1 checkpoints restore) and compute what it computed, within
float32 rounding: the goldens in tests/goldens/contrib_seq2seq_<group>.json
come from TensorFlow 1.15.5 itself (scripts/make_contrib_seq2seq_goldens.py).
"""

import contextlib
import json
import pathlib

import contrib_seq2seq_cases as cases
import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, run_legacy_script
from test_compat_contrib_rnn import train_user_model

GOLDENS = pathlib.Path(ROOT) / "tests" / "goldens"


def _golden(group: str) -> dict:
    path = GOLDENS / f"contrib_seq2seq_{group}.json"
    return json.loads(path.read_text())["cases"] if path.exists() else {}


PARAMS = [(g, name) for g in cases.GROUPS for name in sorted(_golden(g))]


def _seq2seq():
    names = {}
    exec("from tensorflow.contrib import seq2seq", names)  # as a user's module does
    return names["seq2seq"]


@contextlib.contextmanager
def _control_flow_v1(on: bool):
    """TF 1.x's loops (Enter/Exit/NextIteration) while building, as TF 1.15
    built them (disable_control_flow_v2); TF 2's again after."""
    was = tf.compat.v1.control_flow_v2_enabled()
    if on:
        tf.compat.v1.disable_control_flow_v2()
    try:
        yield
    finally:
        if was:
            tf.compat.v1.enable_control_flow_v2()


def test_every_case_has_a_golden_and_every_golden_a_case():
    for group in cases.GROUPS:
        assert sorted(cases.cases(group)) == sorted(_golden(group)), group


@pytest.mark.parametrize("group,name", PARAMS)
def test_case_computes_what_tf115_computed(installed, group, name):
    want = _golden(group)[name]
    with _control_flow_v1(name in cases.LOOP_LOOKUP_GRADIENTS):
        got = cases.run(_seq2seq(), tf.compat.v1, cases.cases(group)[name])
    if "error" in want or "error" in got:
        assert got.get("error") == want.get("error"), got
        return
    assert got["variables"] == want["variables"]
    assert sorted(got["values"]) == sorted(want["values"])
    for key, expected in want["values"].items():
        expected = np.asarray(expected)
        value = np.asarray(got["values"][key])
        assert value.shape == expected.shape, key
        if expected.dtype.kind in "iub":
            np.testing.assert_array_equal(value, expected, err_msg=key)
        else:
            np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5, err_msg=key)


@pytest.mark.parametrize("name", cases.LOOP_LOOKUP_GRADIENTS)
def test_under_tf2_control_flow_only_the_norm_of_a_loop_lookups_gradient_differs(installed, name):
    """TF 2's loop gives the lookup's gradient dense: the same outputs and loss,
    and a global norm TF 1.15.5 did not compute (it summed each repeated row's
    parts apart)."""
    want = _golden("decode")[name]["values"]
    got = cases.run(_seq2seq(), tf.compat.v1, cases.cases("decode")[name])["values"]
    for key in ("logits", "loss", "sample_id"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-5, err_msg=key)
    assert abs(got["grad_norm"] - want["grad_norm"]) > 1e-3, (got["grad_norm"], want["grad_norm"])


def test_a_users_attention_decoder_model_trains_on_replicated_towers(tmp_path):
    # tests/user_models/decoder_rows.py: dynamic_decode of an AttentionWrapper
    # cell in each tower's while loop, on the tower's own copies of the
    # variables (the parameter server: tests/test_tf2_decode.py, both entry
    # points). Measured: 2.30 -> 1.28 in 40 steps.
    _, summary = train_user_model(tmp_path, "decoder_rows", "build", "replicated")
    assert summary["final_loss"] < 1.5  # from ln(10) = 2.30
    shapes = tf.train.load_checkpoint(str(tmp_path)).get_variable_to_shape_map()
    wrapper = "decoder/attention_wrapper/"
    assert shapes["decoder/memory_layer/kernel"] == [16, 16]
    assert shapes[wrapper + "bahdanau_attention/attention_v"] == [16]
    assert shapes[wrapper + "attention_layer/kernel"] == [32, 16]
    assert shapes["decoder/output_projection/kernel"] == [16, 10]


def test_an_nmt_style_program_trains_restores_and_decodes_through_python_m_compat(tmp_path):
    # tests/legacy_scripts/nmt_style.py: Luong attention, TrainingHelper,
    # sequence_loss; inference graphs restore the checkpoint by name and decode
    # greedily and by beam search. Measured: 2.56 -> 0.0006 in 250 steps, every
    # held-out sequence reversed right both ways.
    values = run_legacy_script(str(pathlib.Path(ROOT) / "tests/legacy_scripts/nmt_style.py"),
                               tmp_path, str(tmp_path))  # fmt: skip
    assert float(values["last_loss"]) < float(values["first_loss"]) / 100
    assert float(values["greedy_accuracy"]) > 0.9
    assert float(values["beam_accuracy"]) > 0.9
    assert values["beam_scores_sorted"] == "True"  # beams come out best first
    # Its TF2 port (nmt_style_tf2.py, on tf1_train.tf2's decode and beam search
    # twins, no compat.v1) restores the checkpoint and finds the same words and
    # beams. Measured: ids identical, scores bit-identical.
    from legacy_scripts import nmt_style_tf2

    nmt_style_tf2.main(str(tmp_path))
    tf1, tf2 = np.load(tmp_path / "decoded.npz"), np.load(tmp_path / "decoded_tf2.npz")
    for name in ("greedy", "beam_ids"):
        np.testing.assert_array_equal(tf2[name], tf1[name], err_msg=name)
    np.testing.assert_allclose(tf2["scores"], tf1["scores"], rtol=0, atol=1e-5)
