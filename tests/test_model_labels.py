"""A model that needs the labels in its forward pass (``build(..., labels=None)``):
a capsule network whose decoder reconstructs the true class's capsule
(tests/user_models/capsules.py). Each tower gets its own batch's labels,
evaluation the test batch's, an export ``labels=None``; the TF2 twin gets
the replica's; both entry points and the port check agree."""

import dataclasses
import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import run_clis, small_config
from tests.test_user_code import _build
from tests.user_models import capsules
from tf1_train import export, models, train
from tf1_train.errors import UserError
from tf1_train.port.__main__ import main as port_main

UM = "tests.user_models.capsules"
MODES = ["parameter_server", "replicated"]


def _register(name, fn):
    models.register(name, fn)
    return name


def _one_hot_inputs(tensor):
    """The inputs of every OneHot op the tensor is computed from."""
    todo, seen, found = [tensor.op], set(), set()
    while todo:
        op = todo.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type == "OneHot":
            found.add(op.inputs[0].ref())
        todo += [t.op for t in op.inputs]
    return found


@pytest.mark.parametrize("mode", MODES)
def test_each_tower_gives_the_model_its_own_labels(tmp_path, mode):
    def run(name, towers, batch):
        cfg = small_config(tmp_path / name, model=f"{UM}:build", towers=towers, batch=batch,
                           steps=4, variable_update=mode, optimizer="adam",
                           learning_rate=0.01)  # fmt: skip
        return train.run(dataclasses.replace(cfg, loss=f"{UM}:margin_loss"), gpus_found=0)

    one, two = run("one", 1, 16), run("two", 2, 8)
    np.testing.assert_allclose(two.losses, one.losses, rtol=2e-5)
    assert one.losses[-1] < one.losses[0]
    cfg = small_config("unused", model=f"{UM}:build", towers=2, batch=8, variable_update=mode)
    g = _build(dataclasses.replace(cfg, loss=f"{UM}:margin_loss"))
    # the model's mask and the loss read one labels tensor per tower, not another tower's
    found = [_one_hot_inputs(loss) for loss in g.tower_losses]
    assert [len(f) for f in found] == [1, 1] and found[0] != found[1]


def test_evaluation_gets_the_test_labels_and_the_export_none(tmp_path):
    seen = []

    def recorded(images, is_training, num_classes, labels=None):
        seen.append((is_training, labels))
        return capsules.build(images, is_training, num_classes, labels)

    try:
        name = _register("capsules_recorded_for_test", recorded)
        cfg = small_config(tmp_path / "run", model=name, towers=2, batch=8, steps=2)
        cfg = dataclasses.replace(cfg, loss=f"{UM}:margin_loss")
        g = _build(cfg)
        train.run(cfg, gpus_found=0)
        towers = [labels for training, labels in seen[:3] if training]
        evaluated = [labels for training, labels in seen[:3] if not training]
        assert len(towers) == 2 and towers[0] is not towers[1]
        assert len(evaluated) == 1 and evaluated[0].op.name.startswith("eval_input/")
        assert g.graph is towers[0].graph
        seen.clear()
        export.export_saved_model(str(tmp_path / "run"), name, (8, 8, 1), 10,
                                  str(tmp_path / "export"))  # fmt: skip
        assert seen == [(False, None)]
    finally:
        models._REGISTRY.pop("capsules_recorded_for_test")


def test_an_export_the_model_cannot_build_without_labels_is_one_line(tmp_path):
    def needs_them(images, is_training, num_classes, labels):
        mask = tf.one_hot(labels, num_classes)  # fails on None, as a TF1 model_fn's EVAL code
        return capsules.build(images, is_training, num_classes, labels)[0] * (1.0 + 0 * mask)

    cfg = small_config(tmp_path / "run", model=f"{UM}:build", steps=1)
    train.run(dataclasses.replace(cfg, loss=f"{UM}:margin_loss"), gpus_found=0)
    try:
        name = _register("capsules_needing_labels_for_test", needs_them)
        said = r"^--model=capsules_needing_labels_for_test: .*labels=None, as Estimator's PREDICT"
        with pytest.raises(UserError, match=said):
            export.export_saved_model(str(tmp_path / "run"), name, (8, 8, 1), 10,
                                      str(tmp_path / "export"))  # fmt: skip
    finally:
        models._REGISTRY.pop("capsules_needing_labels_for_test")
    assert not (tmp_path / "export").exists()


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_both_entry_points_train_the_same_numbers_with_the_labels(tmp_path, precision):
    args = [f"--model={UM}:build", f"--tf2_model={UM}:CapsulesTwin", f"--loss={UM}:margin_loss",
            "--num_gpus=2", "--deterministic", "--seed=3", "--train_steps=20",
            "--display_every=5", "--batch_size=8", "--optimizer=adam",
            "--learning_rate=0.01", f"--precision={precision}"]  # fmt: skip
    modules = ("tf1_train.main", "tf1_train.tf2.main")
    runs = [[*args, f"--train_dir={tmp_path / m}"] for m in modules]
    losses, accuracy = {}, {}
    for module, proc in zip(modules, run_clis(runs, module=list(modules))):
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = proc.stdout.splitlines()
        losses[module] = [float(x.split()[3]) for x in out if x.startswith("step ")]
        summary = json.loads((tmp_path / module / "run_summary.json").read_text())
        losses[module].append(summary["final_loss"])
        accuracy[module] = summary["test_accuracy"]
    tf1, tf2 = (losses[m] for m in modules)
    assert len(tf1) == 5 and tf1[-1] < tf1[0]
    assert tf2[:-1] == tf1[:-1] and tf2[-1] == pytest.approx(tf1[-1], rel=1e-5)
    # bf16: evaluation's bfloat16 kernels differ between the paths (one of 360 examples seen)
    close = 1e-6 if precision == "fp32" else 0.01
    assert accuracy[modules[0]] == pytest.approx(accuracy[modules[1]], abs=close)


def test_the_port_check_gives_both_sides_the_labels(tmp_path, capsys):
    report = tmp_path / "check.json"
    status = port_main(["check", f"--tf1={UM}:build", f"--tf2={UM}:CapsulesTwin",
                        f"--loss={UM}:margin_loss", f"--tf2_loss={UM}:margin_loss",
                        "--num_gpus=2", "--batch_size=8", "--steps=3", "--optimizer=adam",
                        "--learning_rate=0.01", f"--json={report}"])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    assert "inventory: 9 TF1 and 9 TF2 variables: all matched" in out and "result: agree" in out


def test_the_keras_fit_route_refuses_a_model_that_takes_labels():
    from tf1_train.tf2 import keras_fit

    models.register("capsules_keras_for_test", capsules.build, keras=keras_fit.lenet5_layers)
    try:
        with pytest.raises(UserError, match=r"takes labels, which Keras' fit never gives"):
            keras_fit.build_model("capsules_keras_for_test", (8, 8, 1), 10, 16.0)
    finally:
        models._REGISTRY.pop("capsules_keras_for_test")
