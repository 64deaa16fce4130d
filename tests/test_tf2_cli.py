"""The TF2 entry point takes the TF1 flags and writes the same summary."""

import json

import pytest

from tests.conftest import start_cli
from tests.test_cli import SPEC_KEYS


@pytest.mark.parametrize("route", ["custom", "keras"])
def test_tf2_cli_writes_the_same_summary(cli, tmp_path, route):
    args = ["--num_gpus=2", "--train_steps=40", "--display_every=20", f"--route={route}"]
    # A TF1 flagfile's session options: threads honoured, the others named.
    args += ["--intra_op_threads=1", "--xla", "--variable_update=replicated"]
    out = cli(args + [f"--train_dir={tmp_path}"], module="tf1_train.tf2.main")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stderr.count("warning: no GPU found") == 1
    (unused,) = [line for line in out.stderr.splitlines() if "does not use" in line]
    assert unused.startswith("warning: the TF2 path does not use --variable_update=replicated, ")
    assert "--xla=True (TF1 session" in unused and "threads" not in unused
    assert "step 40/40" in out.stdout
    summary = json.loads((tmp_path / "run_summary.json").read_text())
    assert SPEC_KEYS <= set(summary)
    assert summary["tower_devices"] == ["/device:CPU:0", "/device:CPU:1"]
    assert summary["variable_update"].startswith("mirrored") and summary["global_step"] == 40
    assert summary["variable_devices"] == {"/device:CPU:0": 10, "/device:CPU:1": 10}


def test_tf2_cli_refuses_bad_flags_like_tf1(cli, tmp_path):
    out = cli(["--optimizer=lbfgs", f"--train_dir={tmp_path}"], module="tf1_train.tf2.main")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert (
        out.stderr.strip()
        .splitlines()[-1]
        .startswith("error: --optimizer=lbfgs: unknown value; valid: sgd")
    )


def test_a_resumed_tf2_run_prints_at_global_steps_like_tf1(cli, tmp_path):
    args = ["--model=mlp", "--display_every=5", "--num_warmup_steps=0", f"--train_dir={tmp_path}"]
    first = cli(args + ["--train_steps=7"], module="tf1_train.tf2.main")
    assert first.returncode == 0, first.stderr[-3000:]
    resumed = cli(args + ["--train_steps=12"], module="tf1_train.tf2.main")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    steps = [line.split()[1] for line in resumed.stdout.splitlines() if line.startswith("step ")]
    assert steps == ["10/12", "12/12"]  # global multiples of 5, then the last step


def test_both_paths_write_tensorboard_scalars_at_the_same_steps(cli, tmp_path):
    """Every --save_summary_steps and at the last step, on both entry points."""
    from tensorboard.backend.event_processing import event_accumulator as ea

    args = ["--model=mlp", "--train_steps=5", "--save_summary_steps=2", "--num_warmup_steps=0"]
    runs = {
        name: start_cli([*args, f"--train_dir={tmp_path / name}"], _log(tmp_path, name), module)
        for module, name in (("tf1_train.main", "tf1"), ("tf1_train.tf2.main", "tf2"))
    }
    for name, proc in runs.items():
        assert proc.wait(timeout=240) == 0, _log(tmp_path, name).read_text()[-3000:]
    tf1 = ea.EventAccumulator(str(tmp_path / "tf1")).Reload()
    tf2 = ea.EventAccumulator(str(tmp_path / "tf2"), size_guidance={ea.TENSORS: 0}).Reload()
    assert [e.step for e in tf1.Scalars("loss")] == [2, 4, 5]
    assert [e.step for e in tf2.Tensors("loss")] == [2, 4, 5]


def _log(tmp_path, name):
    return tmp_path / f"{name}.out"


def _eval_lines(stdout):
    return [line for line in stdout.splitlines() if line.startswith("eval at step ")]


def test_both_paths_save_and_evaluate_at_the_same_steps(cli, tmp_path):
    """--save_checkpoint_steps and --eval_every on the custom loop as on TF1:
    the same checkpoints and the same eval lines (the same weights: the two
    paths are bit-identical); Keras fit says in one line that it does not."""
    args = ["--model=mlp", "--train_steps=12", "--save_checkpoint_steps=4", "--eval_every=6",
            "--deterministic", "--display_every=12"]  # fmt: skip
    runs = {  # side by side: each is mostly TensorFlow's import
        name: start_cli(
            [*args, *extra, f"--train_dir={tmp_path / name}"], _log(tmp_path, name), module
        )
        for name, module, extra in (
            ("tf1", "tf1_train.main", []),
            ("tf2", "tf1_train.tf2.main", []),
            ("keras", "tf1_train.tf2.main", ["--route=keras"]),
        )
    }
    found = {}
    for name, proc in runs.items():
        assert proc.wait(timeout=240) == 0, _log(tmp_path, name).read_text()[-3000:]
        saved = sorted(p.name for p in (tmp_path / name).glob("model.ckpt-*.index"))
        found[name] = (saved, _eval_lines(_log(tmp_path, name).read_text()))
    saved, evals = found["tf1"]
    assert saved == ["model.ckpt-12.index", "model.ckpt-4.index", "model.ckpt-8.index"]
    assert [line.split(":")[0] for line in evals] == ["eval at step 6", "eval at step 12"]
    assert found["tf2"] == found["tf1"]
    keras = _log(tmp_path, "keras").read_text()
    (warning,) = [line for line in keras.splitlines() if "--route=keras saves" in line]
    assert warning.startswith("warning: ") and "--eval_every" in warning
