"""A GPT-2 fine-tuner's gradient checkpointing through ``python -m
tf1_train.compat --v1``: tests/legacy_scripts/grad_checkpoint_style.py
recomputes the forward pass between checkpoints with
``tensorflow.contrib.graph_editor`` (walks, ``filter_ts_from_regex``,
``copy_with_input_replacements`` of an ``sgv``, ``reroute_ts`` restricted
by ``can_modify``, ``add_control_inputs``, ``select_ops``), as the
recomputation module copied into nshepperd/gpt-2 and gpt-2-simple does, and
trains a small transformer on its gradients and on ``tf.gradients``'.

Measured (3 blocks of width 32, 8 Adam steps, 2 CPU cores): the two
gradient sets at the initial point differ by 0 (collection: 2 block
outputs) and 2.4e-7 = 1.4e-7 of the largest gradient (speed: 19 MatMul
outputs); the loss trajectories (2.753 -> 0.897) by at most 1.1e-7
relative. Held to 1e-6 relative, a few float32 roundings. The program
builds a greedy sampler first, as the GPT-2 trainers do, so the
'checkpoints' collection also holds tensors of the sampler's loop body,
which the program keys a dict on: TF 1.x's tensors hashed by identity, and
the runner turns TF 2's tensor equality off so they do again (with it on,
the program stops at "Tensor is unhashable"). On TensorFlow 2 alone the
program stops at its graph editor import, where such programs stop today.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "grad_checkpoint_style.py")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}
TIMEOUT = 120  # one run takes 6-8 s
RELATIVE = 1e-6  # a few float32 roundings: summation orders differ, values do not
STEPS = 8
LAYERS = 3


@pytest.fixture(scope="module", params=["collection", "speed"])
def report(request) -> dict:
    """The program's JSON line for ``--checkpoints=<param>`` (one run per mode)."""
    args = ["--v1", SCRIPT, f"--checkpoints={request.param}", f"--steps={STEPS}"]
    out = run_cli([*args, f"--layers={LAYERS}"], TIMEOUT, env=QUIET, module="tf1_train.compat")
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, out.stdout[-3000:]
    return json.loads(lines[0])


def test_checkpointed_gradients_equal_tf_gradients_at_the_initial_point(report):
    assert report["grad_tensors"] == 4 + 12 * LAYERS  # wte, wpe, ln_f; 12 per block
    assert report["grad_max_abs"] > 0.1
    assert report["grad_max_abs_diff"] <= RELATIVE * report["grad_max_abs"]


def test_both_trainings_follow_one_loss_trajectory_and_it_falls(report):
    plain, saved = np.array(report["loss_plain"]), np.array(report["loss_checkpointed"])
    assert len(plain) == len(saved) == STEPS + 1  # before each step, and after the last
    np.testing.assert_allclose(saved, plain, rtol=RELATIVE, atol=0)
    assert plain[0] == pytest.approx(np.log(16), abs=0.05)  # 16 tokens, small initial weights
    assert plain[-1] < 0.5 * plain[0]
    assert all(np.diff(plain) < 0)


def test_the_backward_pass_recomputes_between_the_checkpoints(report):
    # collection: the outputs of every block but the last; speed: every
    # MatMul (6 per block, the tied output projection) outside the loss.
    expected = {"collection": LAYERS - 1, "speed": 6 * LAYERS + 1}[report["checkpoint_mode"]]
    assert report["checkpoints"] == expected
    assert report["recomputed_ops"] > 100
    # every copy and checkpoint-gradient op waits for what it must follow
    assert report["waiting_ops"] > report["recomputed_ops"] and report["not_waiting_ops"] == 0
    # the gradient ops read no activation of the forward pass but the checkpoints
    assert report["kept_activations"] == []
    assert report["plain_gradient_ops"] > 0  # select_ops found tf.gradients' scope


def test_a_sampler_loop_built_first_leaves_body_tensors_in_the_collection(report):
    assert report["checkpoints_in_loop_body"] == LAYERS - 1  # hashed by the program
    sample = np.array(report["sample"])
    assert sample.shape == (4, 4) and ((0 <= sample) & (sample < 16)).all()


def test_on_tensorflow_2_alone_the_program_stops_at_the_graph_editor_import():
    with open(SCRIPT) as f:
        source = f.read().splitlines()
    line = source.index("import tensorflow.contrib.graph_editor as ge") + 1
    out = subprocess.run(
        [sys.executable, SCRIPT, "--steps=1"],
        cwd=ROOT,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert out.returncode == 1 and out.stdout == ""
    assert f'grad_checkpoint_style.py", line {line}, in <module>' in out.stderr
    assert out.stderr.rstrip().endswith("ModuleNotFoundError: No module named 'tensorflow.contrib'")
