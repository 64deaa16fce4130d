"""Real and synthetic data through the command line, as a user runs it."""

import json

from tests import data_files
from tests.conftest import run_clis


def test_resnet20_on_synthetic_cifar10_needs_no_data_on_disk(cli, tmp_path):
    args = [
        "--model=resnet20",
        "--dataset=cifar10",
        "--use_synthetic_data",
        "--num_gpus=2",
        "--batch_size=32",
        "--train_steps=2",
        f"--train_dir={tmp_path}",
    ]
    out = cli(args)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    assert summary["model"] == "resnet20" and summary["global_step"] == 2
    # 65 trainable variables + 42 batch-norm moving statistics, each once.
    assert summary["variable_devices"] == {"/device:CPU:0": 107}


def test_resnet_with_augmented_cifar10_is_bit_identical_when_deterministic(tmp_path):
    """Batch norm across replicated towers, augmentation and the real-data
    pipeline under --deterministic: two runs agree to the last bit."""
    data_files.write_cifar10(tmp_path, per_batch=4)
    args = [
        "--model=resnet20",
        "--dataset=cifar10",
        f"--data_dir={tmp_path}",
        "--num_gpus=2",
        "--batch_size=4",
        "--variable_update=replicated",
        "--optimizer=momentum",
        "--train_steps=4",
        "--display_every=1",
        "--deterministic",
    ]
    runs = run_clis([args + [f"--train_dir={tmp_path / name}"] for name in "ab"])
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-2000:]
    losses = [[line for line in r.stdout.splitlines() if line.startswith("step ")] for r in runs]
    assert len(losses[0]) == 4
    strip = [[line.split("examples/sec")[0] for line in lines] for lines in losses]
    assert strip[0] == strip[1]
    a, b = (json.loads((tmp_path / n / "run_summary.json").read_text()) for n in "ab")
    assert repr(a["final_loss"]) == repr(b["final_loss"])
