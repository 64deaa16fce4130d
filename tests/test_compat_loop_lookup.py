"""``python -m tf1_train.compat --v1_control_flow``: TF 1.x's loops, held to
TensorFlow 1.15.5 itself. A lookup made inside a loop has a dense gradient
in TF 2's loops and an IndexedSlices one in TF 1.x's: the global norm and the
row-wise optimizers' updates differ (port/loop_rules.py). A program in the
manner of hand-written decoders (tests/legacy_scripts/loop_lookup_style.py)
prints what TF 1.15.5 printed under the option, and other numbers without
it; the scan says which lines and when they keep TF 1.x's numbers."""

import json
import pathlib
import subprocess

import numpy as np
import pytest
from conftest import ROOT, run_cli

from tf1_train.port import scan

SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "loop_lookup_style.py"
GOLDEN_FILE = pathlib.Path(ROOT) / "tests" / "goldens" / "loop_lookup_tf115.json"
GOLDEN = json.loads(GOLDEN_FILE.read_text())
CONFIGS = sorted(GOLDEN["configs"])


def _printed(*options: str, args) -> dict:
    out = run_cli([*options, str(SCRIPT), *args], module="tf1_train.compat",
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return _numbers(out)


def _numbers(out: subprocess.CompletedProcess) -> dict:
    pairs = (line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)
    return {k: float(v) for k, v in pairs}


def _tf115(config: str) -> dict:
    return {k: float(v) for k, v in GOLDEN["configs"][config]["printed"].items()}


@pytest.mark.parametrize("config", CONFIGS)
def test_under_v1_control_flow_it_prints_what_tensorflow_1_15_5_printed(config):
    want = _tf115(config)
    got = _printed("--v1", "--v1_control_flow", args=GOLDEN["configs"][config]["args"])
    assert sorted(got) == sorted(want) and len(want) == 15
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("config", [c for c in CONFIGS if not c.startswith("sampler")])
def test_under_tf2_control_flow_the_norm_and_the_row_wise_updates_differ(config):
    want = _tf115(config)
    got = _printed("--v1", args=GOLDEN["configs"][config]["args"])
    assert abs(got["norm_0"] - want["norm_0"]) > 1e-3  # before any update: the count alone
    losses = [k for k in want if k.startswith("loss_")]
    drift = max(abs(got[k] - want[k]) for k in losses)
    if config == "while_adam":  # Adam's sparse update is its dense one
        assert drift < 1e-5
    else:  # clipped by another norm; Momentum moves rows the batch did not look up
        assert drift > 1e-4 and abs(got["embedding_norm"] - want["embedding_norm"]) > 1e-4


def test_a_sampling_loop_no_loss_differentiates_keeps_tf1_numbers_in_tf2_control_flow():
    """SeqGAN's generator in small: the lookup of sampled tokens is in a loop
    the loss never reads, so TF 2's loops change nothing (the scan: works)."""
    want = _tf115("sampler_momentum")
    got = _printed("--v1", args=GOLDEN["configs"]["sampler_momentum"]["args"])
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


def test_the_scan_finds_the_lookups_and_says_when_they_keep_tf1_numbers():
    def found(**options):
        return [(f.line, f.severity) for f in scan.scan([str(SCRIPT)], v1=True, **options).findings
                if f.rule == "loop-lookup-gradient"]  # fmt: skip

    lines = SCRIPT.read_text().splitlines()
    want = [n for n, line in enumerate(lines, 1)
            if "(embedding, ids[:, t])" in line or "EmbeddingWrapper(" in line]  # fmt: skip
    assert len(want) == 2  # the sampling loop's lookup: works, listed once a file
    assert found() == [(n, "changes numbers") for n in want]
    assert found(v1_control_flow=True) == [(want[0], "works")]  # works: once a file
    assert found(v1_variables=True) == [(want[0], "works")]


@pytest.mark.parametrize(
    "training, severity",
    [
        ("tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)", "changes numbers"),
        ("tf.train.RMSPropOptimizer(0.1).minimize(loss)", "changes numbers"),
        (
            "g, _ = tf.clip_by_global_norm(g, 5.0)\ntf.train.AdamOptimizer().minimize(loss)",
            "changes numbers",
        ),  # fmt: skip
        ("tf.train.AdamOptimizer().minimize(loss)", "works"),
        ("tf.train.GradientDescentOptimizer(0.5).minimize(loss)", "works"),
    ],
)
def test_the_finding_changes_numbers_only_where_the_program_counts_rows(
    tmp_path, training, severity
):
    (tmp_path / "model.py").write_text(
        "import tensorflow as tf\nemb = tf.get_variable('emb', [10, 4])\n"
        "def body(t, loss):\n    return t + 1, loss + tf.nn.embedding_lookup(emb, t)\n"
        f"loss = tf.while_loop(cond, body, [0, 0.0])[1]\n{training}\n"
    )
    found = [f for f in scan.scan([str(tmp_path)]).findings if f.rule == "loop-lookup-gradient"]
    assert [(f.line, f.severity) for f in found] == [(4, severity)]
    assert ("the same numbers here" in found[0].fix) == (severity == "works")


def test_a_lookup_of_ids_the_loop_samples_works_with_its_condition(tmp_path):
    (tmp_path / "gen.py").write_text(
        "import tensorflow as tf\nemb = tf.get_variable('emb', [10, 4])\n"
        "def generate(t, x, tokens):\n"
        "    token = tf.cast(tf.multinomial(tf.matmul(x, w), 1), tf.int32)\n"
        "    ids = tf.reshape(token, [-1])\n"
        "    return t + 1, tf.nn.embedding_lookup(emb, ids), tokens.write(t, ids)\n"
        "def greedy(t, x):\n"
        "    return t + 1, tf.nn.embedding_lookup(emb, tf.argmax(tf.matmul(x, w), 1))\n"
        "tf.while_loop(cond, generate, [0, x0, ta])\ntf.while_loop(cond, greedy, [0, x0])\n"
        "tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)\n"
    )
    for name in ("generate", "greedy"):  # works: once a file
        source = (tmp_path / "gen.py").read_text()
        if name == "greedy":
            source = source.replace("tf.while_loop(cond, generate, [0, x0, ta])\n", "")
        (tmp_path / "gen.py").write_text(source)
        found = [f for f in scan.scan([str(tmp_path)]).findings if f.rule == "loop-lookup-gradient"]
        assert [f.severity for f in found] == ["works"]
        assert "a sampling loop" in found[0].fix and "differentiated" in found[0].fix
