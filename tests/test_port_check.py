"""`python -m tf1_train.port check`: a user's Keras 3 port against their TF1 model.

One fixture runs every case as two process chains (the TF1 sides, then the
TF2 sides, which read TF1's files) through the tool's Python API; each test
reads the report of its case. The ports and their faults are in
tests/port_models.py; the CIFAR-10 tutorial's Keras port is the example's own.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT, warm_side
from tf1_train.port import check, hints, name_map, spec

pytestmark = pytest.mark.timeout(600)

MODELS = "tests.port_models"
PORT = {"model": f"{MODELS}:tf1_model", "tf2": f"{MODELS}:keras_port", "steps": 3,
        "optimizer": "momentum", "lr": 0.01, "tf2_optimizer": "keras", "record": "all"}  # fmt: skip
TUTORIAL = "examples.cifar10_tutorial"
CASES = {
    "bn": PORT,
    "adam": {**PORT, "optimizer": "adam", "lr": 0.01},
    "bn_momentum": {**PORT, "tf2": f"{MODELS}:keras_port_momentum_09"},
    "transposed": {**PORT, "model": f"{MODELS}:tf1_model_transposed"},
    "offset": {**PORT, "tf2": f"{MODELS}:keras_port_offset"},
    "summed": {**PORT, "tf2_loss": f"{MODELS}:summed_loss"},
    "rmsprop": {**PORT, "optimizer": "rmsprop", "lr": 0.01},
    "epsilon": {**PORT, "tf2": f"{MODELS}:keras_port_epsilon"},
    "dropout": {**PORT, "tf2": f"{MODELS}:keras_port_dropout"},
    "l2": {**PORT, "model": f"{MODELS}:tf1_model_l2"},
    "towers": {**PORT, "towers": 2, "tf2_loss": f"{MODELS}:global_batch_loss"},
    "tutorial": {
        "model": f"{TUTORIAL}.model:inference",
        "tf2": f"{TUTORIAL}.model_keras:build_keras_model",
        "preprocess": f"{TUTORIAL}.model:preprocess",
        "name_map": name_map.load(f"{ROOT}/examples/cifar10_tutorial/name_map.json"),
        "dataset": "cifar10", "synthetic": True, "towers": 2, "batch": 4, "steps": 20,
        "optimizer": "sgd", "lr": 0.1, "record": "all",
    },
}  # fmt: skip
# the tutorial's plain tf.Module twin: variables named by tf.Variable name, extra_losses()
CASES["tutorial_module"] = {**CASES["tutorial"], "tf2": f"{TUTORIAL}.model_tf2:Cifar10Tutorial",
                            "name_map": {}, "steps": 3}  # fmt: skip


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("port_check")
    check.run_chains(
        [{**c, "id": i} for i, c in CASES.items()], str(out), shards=2, run_side=warm_side
    )
    return str(out)


def _report(out_dir, name, allow=()):
    return check.report({**CASES[name], "id": name}, out_dir, allow=allow)


def _hint_ids(report):
    return [h["id"] for h in report["hints"]]


def test_a_keras_port_differs_only_in_the_moving_variance(out_dir):
    report = _report(out_dir, "bn")
    first = report["first_divergence"]
    assert (first["phase"], first["step"], first["tensor"]) == ("step", 1, "bn/moving_variance")
    assert _hint_ids(report) == ["bn_moving_variance"]
    assert "n = 64 values per channel" in report["hints"][0]["evidence"]  # 16 x 2 x 2
    # every other tensor agrees at every step: the forward pass, gradients, weights
    others = [r for r in report["rows"] if r["tensor"] != "bn/moving_variance"]
    assert len(others) == 2 + 6 + 3 * 8 and all(r["ok"] for r in others)
    accepted = _report(out_dir, "bn", allow=["moving_variance"])
    assert accepted["ok"] and accepted["first_divergence"] is None
    assert [a["tensor"] for a in accepted["accepted"]] == ["bn/moving_variance"]
    assert accepted["accepted"][0]["hints"][0]["id"] == "bn_moving_variance"


@pytest.mark.parametrize(
    "name,phase,tensors,hint",
    [
        ("adam", "step", {"conv/kernel", "conv/bias", "dense/kernel", "dense/bias"}, "adam"),
        ("bn_momentum", "step", {"bn/moving_mean"}, "bn_momentum"),
        ("offset", "forward", {"logits"}, "logits_offset"),
        ("summed", "forward", {"loss"}, "loss_reduction"),
        ("rmsprop", "step", {"conv/kernel", "conv/bias", "dense/kernel", "dense/bias"}, "rmsprop"),
        ("epsilon", "forward", {"logits"}, "bn_epsilon"),
        ("dropout", "forward", {"logits"}, "dropout"),
        ("towers", "forward", {"loss"}, "average_loss_towers"),
        ("l2", "forward", {"loss"}, "l2_regularization"),
    ],
)
def test_an_injected_fault_is_named_with_its_hint(out_dir, name, phase, tensors, hint):
    report = _report(out_dir, name, allow=["moving_variance"])
    first = report["first_divergence"]
    assert not report["ok"]
    assert first["phase"] == phase and first["tensor"] in tensors
    assert hint in _hint_ids(report)
    # the forward faults are caught before any update, the others in the first
    assert first["step"] == (0 if phase == "forward" else 1)


def test_adam_hint_names_both_epsilons(out_dir):
    evidence = _report(out_dir, "adam", allow=["moving_variance"])["hints"][0]["evidence"]
    assert evidence == "Adam epsilon: TF1 1e-08, Keras 1e-07"


def test_hints_read_both_sides_settings(out_dir):
    """The evidence names what each side used, from the TF1 graph's own ops."""
    evidence = {n: _report(out_dir, n, allow=["moving_variance"])["hints"] for n in CASES}
    epsilon = "batch-norm epsilon: TF1 0.001, TF2 1e-05"
    assert [h["evidence"] for h in evidence["epsilon"]] == [epsilon]
    assert [h["evidence"] for h in evidence["dropout"]] == [
        "the TF2 model has Dropout, the TF1 model none"
    ]
    (rms,) = evidence["rmsprop"]
    assert "mean square starting at 1" in rms["evidence"] and "3.16 lr" in rms["evidence"]
    assert [h["id"] for h in evidence["towers"]] == ["average_loss_towers"]
    assert "0.5 x TF1's, 2 towers" in evidence["towers"][0]["evidence"]
    (l2,) = evidence["l2"]
    assert (
        l2["evidence"].startswith("TF1 adds its own loss terms (") and "adds none" in l2["evidence"]
    )
    # asked about a forward row of the faithful port, neither hint speaks: both
    # sides' batch norm uses 1e-3 and neither has dropout
    case = spec.complete({**CASES["bn"], "id": "bn"})
    tf1, tf2, info = check.load(case, out_dir)
    forward = {"phase": "forward", "step": 0, "tensor": "logits"}
    assert hints.find(forward, hints.Context(case, info, tf1, tf2)) == []
    assert list(tf1["fwd:bn_epsilon"]) == [0.001] and int(tf1["fwd:dropout_layers"]) == 0


def test_the_tf1_graphs_batch_norm_epsilons_and_dropout_layers_are_read():
    import tensorflow as tf

    from tf1_train.compat import layers
    from tf1_train.port import sides

    with tf.Graph().as_default() as g:
        x = tf.zeros([4, 8, 8, 3])
        x = layers.batch_normalization(x, epsilon=1e-5, training=True, name="bn1")
        x = layers.batch_normalization(x, training=True, name="bn2")  # v1's 1e-3
        x = layers.dropout(x, 0.5, training=True)
        tf.nn.dropout(layers.flatten(x), rate=0.1)
        facts = sides.graph_facts(g)
    assert list(facts["fwd:bn_epsilon"]) == [1e-5, 1e-3] and int(facts["fwd:dropout_layers"]) == 2


def test_bn_momentum_hint_recovers_both_momenta(out_dir):
    evidence = _report(out_dir, "bn_momentum")["hints"][0]["evidence"]
    assert evidence.endswith("momentum 0.9 on TF2, 0.99 on TF1")


def test_a_transposed_kernel_fails_the_inventory_before_any_step(out_dir):
    report = _report(out_dir, "transposed")
    assert not report["ok"] and report["first_divergence"]["phase"] == "inventory"
    (mismatch,) = report["inventory"]["shape_mismatches"]
    assert (
        mismatch["tf1"] == "dense/kernel" and mismatch["tf2_shape"] == mismatch["tf1_shape"][::-1]
    )
    assert _hint_ids(report) == ["transposed_kernel"]
    tf2 = np.load(f"{out_dir}/transposed_tf2.npz")
    assert "losses" not in tf2.files  # the TF2 side ran no step


def test_the_cifar10_tutorials_keras_port_passes_on_two_towers(out_dir):
    report = _report(out_dir, "tutorial")
    assert report["ok"], check.format_report(report)
    steps = [r for r in report["rows"] if r["phase"] == "step"]
    assert len(steps) == 20 * (1 + 10)  # each step's loss and the 10 variables
    assert report["inventory"]["tf1_variables"] == 10


def test_a_tf_module_port_is_matched_by_its_variable_names(out_dir):
    report = _report(out_dir, "tutorial_module")
    assert report["ok"], check.format_report(report)
    assert report["inventory"]["tf2_variables"] == 10
    loss = next(r for r in report["rows"] if r["phase"] == "forward" and r["tensor"] == "loss")
    assert loss["ok"]  # its extra_losses() are the TF1 'losses' collection's terms
    tf1 = np.load(f"{out_dir}/tutorial_module_tf1.npz")
    assert float(tf1["fwd:own_losses"]) > 0


def test_the_cli_exits_1_on_a_divergence_and_0_once_it_is_accepted(tmp_path):
    flags = [f"--tf1={PORT['model']}", f"--tf2={PORT['tf2']}", "--steps=2", "--optimizer=momentum",
             "--tf2_optimizer=keras"]  # fmt: skip
    runs = {
        allow: subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tf1_train.port",
                "check",
                *flags,
                f"--json={tmp_path}/{allow or 'none'}.json",
                *([f"--allow={allow}"] if allow else []),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for allow in ("", "moving_variance")
    }
    out = {allow: proc.communicate(timeout=300) for allow, proc in runs.items()}
    assert runs[""].returncode == 1, out[""][1][-3000:]
    assert "first divergence: step 1, bn/moving_variance" in out[""][0]
    assert out[""][0].rstrip().endswith("result: DIVERGED")
    assert runs["moving_variance"].returncode == 0, out["moving_variance"][1][-3000:]
    assert "accepted (--allow): bn/moving_variance" in out["moving_variance"][0]
    assert out["moving_variance"][0].rstrip().endswith("result: agree")
    failed = json.loads((tmp_path / "none.json").read_text())  # written when it exits 1 too
    assert not failed["ok"] and failed["first_divergence"]["tensor"] == "bn/moving_variance"
    accepted = json.loads((tmp_path / "moving_variance.json").read_text())
    assert accepted["ok"] and accepted["accepted"][0]["hints"][0]["id"] == "bn_moving_variance"


def test_the_tf1_sides_forward_counts_a_v1_losses_data_loss_once(tmp_path):
    from tf1_train.port import sides

    def forward(loss):
        case = spec.complete({"model": "tests.user_models.regularized:build", "loss": loss})
        cfg = spec.config(case, str(tmp_path / "run"))
        rng = np.random.default_rng(0)
        images = rng.random([4, 8, 8, 1], dtype=np.float32)
        initial = {"linear/w": rng.normal(0, 0.3, [64, 10]), "linear/b": np.zeros(10)}
        return sides._forward_tf1(cfg, 10, initial, images, np.arange(4, dtype=np.int32), 0.0)

    plain, v1_losses = forward(""), forward("tests.user_models.regularized:v1_cross_entropy")
    assert float(plain["fwd:own_losses"]) > 0  # the model's two terms
    for key in ("fwd:own_losses", "fwd:data_loss"):
        np.testing.assert_allclose(v1_losses[key], plain[key], rtol=1e-6, err_msg=key)


def test_run_chains_runs_each_shards_sides_in_order_and_stops_a_chain_at_its_failure(tmp_path):
    calls = []

    def fake_side(side, cases_file, out, timeout):
        with open(cases_file) as f:
            ids = [c["id"] for c in json.load(f)]
        calls.append((side, ids))
        assert out == str(tmp_path) and 0 < timeout <= 60
        if side == "tf1" and "b" in ids:
            return 2, "a log line\nerror: --tf1: no such model\n"
        return 0, ""

    cases = [{"id": i} for i in "abc"]
    with pytest.raises(check.SideFailed) as failed:
        check.run_chains(cases, str(tmp_path), 2, ("tf1", "tf2"), timeout=60, run_side=fake_side)
    assert failed.value.returncode == 2 and failed.value.line == "error: --tf1: no such model"
    # shard 0 holds a and c, shard 1 holds b: its tf2 never runs
    assert sorted(calls) == [("tf1", ["a", "c"]), ("tf1", ["b"]), ("tf2", ["a", "c"])]
    check.run_chains(cases[:1], str(tmp_path), 1, ("tf1", "tf2"), 60, fake_side)  # no failure


def test_run_chains_raises_a_sides_timeout_in_the_callers_thread(tmp_path):
    def slow_side(side, cases_file, out, timeout):
        raise subprocess.TimeoutExpired(["sides", side], timeout)

    with pytest.raises(subprocess.TimeoutExpired):
        check.run_chains([{"id": "a"}], str(tmp_path), 1, ("tf1",), 5, slow_side)
