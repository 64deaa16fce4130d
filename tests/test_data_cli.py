"""Real and synthetic data through the command line, as a user runs it."""

import gzip
import json
import os

import pytest

from tests import data_files


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


def _missing_file(d):
    data_files.write_mnist(d)
    os.remove(d / "t10k-labels-idx1-ubyte")
    return "mnist", d / "t10k-labels-idx1-ubyte", "not found"


def _truncated_idx(d):
    data_files.write_mnist(d, compress=True)
    path = d / "train-images-idx3-ubyte.gz"
    raw = gzip.decompress(path.read_bytes())
    path.write_bytes(gzip.compress(raw[:-100]))
    return "mnist", path, "truncated"


def _short_cifar_batch(d):
    data_files.write_cifar10(d)
    path = d / "data_batch_3.bin"
    path.write_bytes(path.read_bytes()[:-1])
    return "cifar10", path, "not a whole number of 3073-byte records"


def _truncated_tfrecord(d):
    data_files.write_tfrecord(d)
    path = d / "train-00001-of-00002"
    path.write_bytes(path.read_bytes()[:-7])
    return "tfrecord", path, "truncated"


def _corrupt_tfrecord(d):
    """A flipped payload byte: the framing is intact, so loading passes and
    the data-loss error comes from tf.data during training."""
    data_files.write_tfrecord(d)
    (d / "labels.txt").write_text("".join(f"{i}:c{i}\n" for i in range(10)))
    path = d / "train-00001-of-00002"
    raw = bytearray(path.read_bytes())
    raw[40] ^= 0xFF  # inside the first record's payload
    path.write_bytes(bytes(raw))
    return "tfrecord", path, "corrupt record"


def _odd_size_image(d):
    """A valid record whose image is larger: tf.data's size check fails in
    training (InvalidArgumentError), the re-check names the file."""
    data_files.write_tfrecord(d, shape=(6, 5, 3))
    (d / "labels.txt").write_text("".join(f"{i}:c{i}\n" for i in range(10)))
    big = d / "bigger"
    big.mkdir()
    data_files.write_tfrecord(big, shape=(7, 5, 3), train_files=1, per_file=1)
    path = d / "train-00002-of-00003"
    os.rename(big / "train-00000-of-00001", path)
    return "tfrecord", path, "record 0: image is 7x5, expected 6x5"


CASES = [
    _missing_file,
    _truncated_idx,
    _short_cifar_batch,
    _truncated_tfrecord,
    _corrupt_tfrecord,
    _odd_size_image,
]


@pytest.mark.parametrize("make", CASES, ids=[c.__name__.lstrip("_") for c in CASES])
def test_bad_data_file_is_one_line_naming_it(cli, tmp_path, make):
    d = tmp_path / "data"
    d.mkdir()
    dataset, path, problem = make(d)
    args = [
        f"--dataset={dataset}",
        f"--data_dir={d}",
        "--batch_size=2",
        "--train_steps=3",
        f"--train_dir={tmp_path / 'run'}",
    ]
    out = cli(args)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, out.stderr
    assert errors[0].startswith(f"error: --data_dir: {path}: ")
    assert problem in errors[0]
    if make in (_corrupt_tfrecord, _odd_size_image):  # found in training, not loading
        assert "train_dir:" in out.stdout


def test_resnet_with_augmented_cifar10_is_bit_identical_when_deterministic(cli, tmp_path):
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
    runs = [cli(args + [f"--train_dir={tmp_path / name}"]) for name in "ab"]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-2000:]
    losses = [[line for line in r.stdout.splitlines() if line.startswith("step ")] for r in runs]
    assert len(losses[0]) == 4
    strip = [[line.split("examples/sec")[0] for line in lines] for lines in losses]
    assert strip[0] == strip[1]
    a, b = (json.loads((tmp_path / n / "run_summary.json").read_text()) for n in "ab")
    assert repr(a["final_loss"]) == repr(b["final_loss"])
