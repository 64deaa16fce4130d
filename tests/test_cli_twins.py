"""The two entry points as twins: the same command line, the same losses.

Initial weights are one function of (--seed, variable name) on both paths
(tf1_train/initializers.py), so ``python -m tf1_train.main`` and
``python -m tf1_train.tf2.main`` with the same flags train the same model.
"""

import json

import pytest

from tests.conftest import run_clis

ENTRY_POINTS = ("tf1_train.main", "tf1_train.tf2.main")


@pytest.mark.parametrize("model", ["mlp", "lenet5"])
@pytest.mark.parametrize("optimizer,lr", [("sgd", 0.05), ("momentum", 0.01)])
def test_both_clis_give_the_same_losses(tmp_path, model, optimizer, lr):
    args = [f"--model={model}", f"--optimizer={optimizer}", f"--learning_rate={lr}",
            "--num_gpus=2", "--deterministic", "--seed=11", "--train_steps=20",
            "--display_every=5", "--batch_size=16"]  # fmt: skip
    runs = [[*args, f"--train_dir={tmp_path / m}"] for m in ENTRY_POINTS]
    losses = {}
    for module, proc in zip(ENTRY_POINTS, run_clis(runs, module=list(ENTRY_POINTS))):
        assert proc.returncode == 0, proc.stderr[-3000:]
        losses[module] = [
            float(line.split()[3]) for line in proc.stdout.splitlines() if line.startswith("step ")
        ]
        summary = json.loads((tmp_path / module / "run_summary.json").read_text())
        losses[module].append(summary["final_loss"])
    tf1, tf2 = (losses[m] for m in ENTRY_POINTS)
    assert len(tf1) == len(tf2) == 5
    assert tf2[:-1] == tf1[:-1]  # the printed losses (4 decimals)
    assert tf2[-1] == pytest.approx(tf1[-1], rel=1e-5)
