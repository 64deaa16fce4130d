"""docs/PORTING.md's row for ``tf.contrib.graph_editor`` tells porters that
TF 2's gradient checkpointing is ``tf.recompute_grad`` around each block
(the blocks whose outputs the GPT-2 trainers put in the 'checkpoints'
collection). Proven here on the same weights and the same batch:
tests/legacy_scripts/grad_checkpoint_style.py (TF 1.x, graph-editor
checkpointing, through ``python -m tf1_train.compat --v1``) saves its
initial values as a TF 1 checkpoint (``--save_start``) and its
``tf.gradients`` values there with the token batch (``--save_grads``); its
TF 2 port, grad_checkpoint_style_tf2.py (``tf.Module``s, ``tf.GradientTape``,
``tf.recompute_grad`` around each block, no ``tf.compat.v1``, plain
``python``), loads the checkpoint by the TF 1 names and computes the loss and
the gradients with and without ``tf.recompute_grad``, eager and in a
``tf.function``.

Measured (3 blocks of width 32, 40 variables, largest gradient 1.765, loss
2.7529147, 2 CPU cores): the TF 2 gradients equal TF 1's to 0 eager and to
1.2e-7 = 6.8e-8 of the largest gradient in a ``tf.function`` (on
``model/wte``, whose gradient sums the embedding lookup's and the tied
output projection's), with ``tf.recompute_grad`` and without alike; with
against without it the gradients differ by exactly 0, eager and in a
``tf.function``; the loss is the same float32 value. Held to 1e-6 of the
largest gradient (a few float32 roundings), as the TF 1 program's own test.
The blocks read their variables as attributes: ``tf.recompute_grad``'s
custom gradient still sees the reads (``variables=``), and every variable
gets its gradient without being passed as an argument.
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, run_cli

TF1_PROGRAM = os.path.join(ROOT, "tests", "legacy_scripts", "grad_checkpoint_style.py")
TF2_PORT = os.path.join(ROOT, "tests", "legacy_scripts", "grad_checkpoint_style_tf2.py")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}
TIMEOUT = 90  # each side takes 4-6 s
RELATIVE = 1e-6  # of the largest gradient: a few float32 roundings
LAYERS = 3
VARIABLES = 4 + 12 * LAYERS  # wte, wpe, ln_f's two; 12 per block
RUNS = ("recompute_grad_function", "recompute_grad_eager", "plain_function", "plain_eager")


def _json_line(out) -> dict:
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, out.stdout[-3000:]
    return json.loads(lines[0])


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> tuple:
    """(the TF 1 program's JSON line, the TF 2 port's), one run each."""
    out_dir = tmp_path_factory.mktemp("recompute_grad")
    grads = str(out_dir / "grads.npz")
    args = ["--v1", TF1_PROGRAM, "--steps=1", f"--layers={LAYERS}"]
    saving = [f"--save_start={out_dir}", f"--save_grads={grads}"]
    tf1 = _json_line(run_cli(args + saving, TIMEOUT, env=QUIET, module="tf1_train.compat"))
    port = subprocess.run(
        [sys.executable, TF2_PORT, f"--checkpoint={out_dir / 'start'}", f"--grads={grads}"],
        cwd=ROOT,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    return tf1, _json_line(port)


def test_tf2_gradients_with_recompute_grad_equal_the_tf1_programs(reports):
    tf1, tf2 = reports
    assert tf1["grad_max_abs"] > 0.1
    assert tf2["tf1_grad_max_abs"] == pytest.approx(tf1["grad_max_abs"], rel=1e-7)
    for run in ("recompute_grad_function", "recompute_grad_eager"):
        assert tf2[run]["no_gradient"] == [], run
        assert tf2[run]["grad_max_abs_diff"] <= RELATIVE * tf1["grad_max_abs"], (run, tf2[run])


def test_every_variable_is_on_both_sides(reports):
    tf1, tf2 = reports
    assert tf2["layers"] == LAYERS
    counts = (tf1["grad_tensors"], tf2["checkpoint_variables"], tf2["tf2_variables"])
    assert counts == (VARIABLES, VARIABLES, VARIABLES)
    assert tf2["tf1_gradients"] == VARIABLES  # the --save_grads file, by TF 1 name
    assert tf2["not_in_tf1"] == tf2["not_in_tf2"] == tf2["unread_in_checkpoint"] == []


def test_the_loss_is_the_tf1_programs(reports):
    tf1, tf2 = reports
    for run in RUNS:
        assert tf2[run]["loss"] == pytest.approx(tf1["loss_plain"][0], rel=RELATIVE), run


def test_recompute_grad_recomputes_each_block_and_changes_no_gradient(reports):
    tf1, tf2 = reports
    # each block runs again in the backward pass (traced again in a tf.function)
    assert {tf2[run]["block_runs"] for run in RUNS[:2]} == {2 * LAYERS}
    assert {tf2[run]["block_runs"] for run in RUNS[2:]} == {LAYERS}
    # without tf.recompute_grad the port is as close to TF 1, and the two agree
    for run in RUNS[2:]:
        assert tf2[run]["no_gradient"] == [], run
        assert tf2[run]["grad_max_abs_diff"] <= RELATIVE * tf1["grad_max_abs"], run
    for mode in ("function", "eager"):
        diff = tf2[f"recompute_vs_plain_{mode}_max_abs_diff"]
        assert diff <= RELATIVE * tf1["grad_max_abs"], mode


def test_the_port_is_tf2_code():
    with open(TF2_PORT) as f:
        source = f.read()
    assert "compat" not in source and "contrib" not in source
    assert "tf.recompute_grad(" in source and "tf.GradientTape(" in source
    assert "tf.train.load_checkpoint(" in source
    assert source.count("import tensorflow as tf") == 1
