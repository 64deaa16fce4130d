"""The command line, run as a user runs it: in a subprocess."""

import glob
import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_clis

SPEC_KEYS = {
    "tf_version",
    "model",
    "dataset",
    "num_towers",
    "tower_devices",
    "variable_update",
    "variable_devices",
    "global_step",
    "final_loss",
    "test_accuracy",
    "examples_per_sec",
    "wall_seconds",
    "stopped_by",
}


def test_two_towers_on_a_machine_without_gpu(cli, tmp_path):
    out = cli(
        [
            "--flagfile=flags/default.flags",
            "--train_steps=60",
            "--display_every=20",
            f"--train_dir={tmp_path}",
        ]
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("warning: no GPU found") == 1
    assert re.search(r"step 60/60 .*examples/sec \d+\.\d", out.stdout)
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    assert SPEC_KEYS <= set(summary)
    assert summary["num_towers"] == 2
    assert summary["tower_devices"] == ["/device:CPU:0", "/device:CPU:1"]
    assert summary["global_step"] == 60 and summary["stopped_by"] == "train_steps"
    assert summary["variable_devices"] == {"/device:CPU:0": 10}
    assert 0 < summary["test_accuracy"] <= 1 and summary["examples_per_sec"] > 0


def test_device_gpu_without_gpu_says_how_many_were_found(cli, tmp_path):
    out = cli(["--device=gpu", "--num_gpus=2", f"--train_dir={tmp_path}"])
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert "error: --device=gpu: --num_gpus=2 needs 2 GPU(s) but 0 were found" in out.stderr


def test_log_device_placement_shows_each_tower_on_its_device(cli, tmp_path):
    out = cli(
        [
            "--num_gpus=2",
            "--model=lenet5",
            "--train_steps=2",
            "--log_device_placement",
            f"--train_dir={tmp_path}",
        ]
    )
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout + out.stderr  # the C++ runtime writes to fd 1 and 2 (PORTING.md P13)
    placed = dict(re.findall(r"^(tower_\d/\S*Conv2D): \(Conv2D\): (\S+)$", text, re.M))
    assert placed, text[-3000:]
    assert placed["tower_0/conv1/Conv2D"].endswith("/device:CPU:0")
    assert placed["tower_1/conv1/Conv2D"].endswith("/device:CPU:1")


def _losses(stdout):
    return re.findall(r"step \d+/\d+  loss (\S+)", stdout)


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_deterministic_runs_are_bit_identical(tmp_path, mode):
    args = [
        "--num_gpus=2",
        "--train_steps=25",
        "--display_every=1",
        "--deterministic",
        "--seed=5",
        "--optimizer=adam",
        "--learning_rate=0.003",
        f"--variable_update={mode}",
    ]
    a, b = run_clis([args + [f"--train_dir={tmp_path / name}"] for name in "ab"])
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert len(_losses(a.stdout)) == 25 and _losses(a.stdout) == _losses(b.stdout)
    sa = json.loads((tmp_path / "a" / "run_summary.json").read_text())
    sb = json.loads((tmp_path / "b" / "run_summary.json").read_text())
    assert repr(sa["final_loss"]) == repr(sb["final_loss"])
    assert sa["test_accuracy"] == sb["test_accuracy"]


@pytest.mark.parametrize("flagfile", sorted(glob.glob(os.path.join(ROOT, "flags", "*.flags"))))
def test_every_flagfile_parses_into_a_valid_config(flagfile):
    code = (
        "import sys; from tf1_train import main;"
        "main.F(['prog', '--flagfile=' + sys.argv[1]]); print(main.config_from_flags())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, flagfile], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "Config(model=" in out.stdout


ONEDNN_ON = "oneDNN custom operations are on"


@pytest.mark.parametrize(
    "module, args, env, on",
    [
        # On whatever the CPU: TensorFlow alone enables it only with AVX-512/AMX.
        ("tf1_train.main", [], {}, True),
        ("tf1_train.tf2.main", [], {}, True),
        ("tf1_train.main", ["--onednn=off"], {}, False),
        ("tf1_train.main", [], {"TF_ENABLE_ONEDNN_OPTS": "0"}, False),  # the user's value
        ("tf1_train.tf2.main", ["--onednn=on"], {"TF_ENABLE_ONEDNN_OPTS": "0"}, True),
    ],
    ids=["tf1-default", "tf2-default", "flag-off", "env-kept", "flag-wins"],
)
def test_onednn_kernels_are_on_unless_turned_off(cli, tmp_path, monkeypatch, module, args, env, on):
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    # TensorFlow says so in an info line, shown at log level 0 (a level the user set is kept),
    # as it loads: a fresh interpreter's (a warm server printed it to its own stderr).
    env = {"TF_CPP_MIN_LOG_LEVEL": "0", **env}
    out = cli(["--model=mlp", "--train_steps=2", f"--train_dir={tmp_path}", *args], env=env,
              module=module, fresh=True)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert (ONEDNN_ON in out.stderr) == on, out.stderr[-2000:]


@pytest.mark.parametrize("module", ["tf1_train.main", "tf1_train.tf2.main"])
def test_the_entry_points_hide_tensorflows_objects_from_the_collector(tmp_path, module):
    # tf1_train.env.freeze_imports: the interpreter's last collections skip
    # what a run leaves (docs/SPEED.md, "Process start and exit"). A hook
    # registered before the entry point runs after its own, at exit, and
    # reads how many objects are frozen: TensorFlow's alone are 270,000.
    code = (
        "import atexit, gc, runpy, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count()))\n"
        "sys.argv[0] = sys.argv.pop(1)\n"
        "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n"
    )
    args = ["--model=mlp", "--batch_size=8", "--train_steps=1", f"--train_dir={tmp_path}"]
    out = subprocess.run(
        [sys.executable, "-c", code, module, *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    frozen = int(re.search(r"^frozen (\d+)$", out.stdout, re.M)[1])
    assert frozen > 100_000, out.stdout
