"""A model that returns (logits, end_points) and a --loss that uses them:
Inception's auxiliary head, as slim's train_image_classifier.py trained it
(cross-entropy of the logits + 0.4 x that of end_points['AuxLogits'])."""

import dataclasses
import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import run_clis, small_config
from tests.test_user_code import _build, _labels_of
from tests.user_models import aux_head
from tf1_train import export, models

v1 = tf.compat.v1
MODES = ["parameter_server", "replicated"]
UM = "tests.user_models.aux_head"


def _xent(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(labels)), labels].mean()


@pytest.mark.parametrize("loss", ["loss_with_aux", "v1_loss_with_aux"])
@pytest.mark.parametrize("mode", MODES)
def test_each_towers_loss_adds_its_aux_head_term_once(mode, loss):
    seen = []

    def recorded(images, is_training, num_classes):
        out = aux_head.build(images, is_training, num_classes)
        seen.append(out)
        return out

    models.register("aux_recorded_for_test", recorded)
    try:
        cfg = small_config("unused", model="aux_recorded_for_test", towers=2, batch=8,
                           variable_update=mode)  # fmt: skip
        g = _build(dataclasses.replace(cfg, loss=f"{UM}:{loss}"))
    finally:
        models._REGISTRY.pop("aux_recorded_for_test")
    outs = [(logits, points["AuxLogits"]) for logits, points in seen[:2]]
    labels = [_labels_of(t) for t in g.tower_losses]
    with v1.Session(graph=g.graph, config=v1.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        losses, fetched, ys = sess.run([g.tower_losses, outs, labels])
    for i, ((logits, aux), y) in enumerate(zip(fetched, ys)):
        expected = _xent(logits, y) + aux_head.AUX_WEIGHT * _xent(aux, y)
        np.testing.assert_allclose(losses[i], expected, rtol=1e-5)
        assert abs(losses[i] - _xent(logits, y)) > 0.1  # the aux term is there


def test_both_entry_points_train_the_same_numbers_and_export_the_logits(tmp_path):
    args = [f"--model={UM}:build", f"--tf2_model={UM}:AuxHeadTwin", f"--loss={UM}:loss_with_aux",
            "--num_gpus=2", "--deterministic", "--seed=3", "--train_steps=10",
            "--display_every=5", "--batch_size=8", "--learning_rate=0.05"]  # fmt: skip
    modules = ("tf1_train.main", "tf1_train.tf2.main")
    runs = [[*args, f"--train_dir={tmp_path / m}"] for m in modules]
    losses, accuracy = {}, {}
    for module, proc in zip(modules, run_clis(runs, module=list(modules))):
        out = proc.stdout
        assert proc.returncode == 0, proc.stderr[-3000:]
        losses[module] = [float(x.split()[3]) for x in out.splitlines() if x.startswith("step ")]
        summary = json.loads((tmp_path / module / "run_summary.json").read_text())
        losses[module].append(summary["final_loss"])
        accuracy[module] = summary["test_accuracy"]
        if module == "tf1_train.main":  # the start-up line names what the loss is given
            said = f"loss per tower: --loss={UM}:loss_with_aux (given the model's end_points: "
            assert said + "AuxLogits, hidden)" in out
    tf1, tf2 = (losses[m] for m in modules)
    assert len(tf1) == 3 and tf2[:-1] == tf1[:-1]
    assert tf2[-1] == pytest.approx(tf1[-1], rel=1e-5)
    assert accuracy[modules[0]] == pytest.approx(accuracy[modules[1]], abs=1e-6)
    path = export.export_saved_model(
        str(tmp_path / modules[0]), f"{UM}:build", (8, 8, 1), 10, str(tmp_path / "export")
    )
    served = tf.saved_model.load(path).signatures[export.SIGNATURE]
    images = np.random.RandomState(0).rand(2, 8, 8, 1).astype(np.float32)
    assert served(images=tf.constant(images))["logits"].shape == (2, 10)
