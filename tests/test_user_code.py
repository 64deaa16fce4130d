"""A user's own TF1 model, loss and input on the towers: nothing of theirs lost.

The models and input functions live in tests/user_models/ (outside
tf1_train) and are named as a user names them: ``package.module:function``.
Expected values are recomputed here in numpy from the variables and the
batch the graph used.
"""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.framework import config as tf_config

from tests.conftest import small_config
from tests.user_models import regularized
from tf1_train import data, devices, graph, models, train
from tf1_train.errors import UserError

v1 = tf.compat.v1
REGULARIZED = "tests.user_models.regularized:build"
MSE = "tests.user_models.regularized:mean_squared_error"
# tf.compat.v1.losses.*: the data loss is also in the 'losses' collection, once
V1_XENT = "tests.user_models.regularized:v1_cross_entropy"
MODES = ["parameter_server", "replicated"]


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _inputs_recorder(seen):
    """The user's model, also recording each tower's input batch."""

    def build(images, is_training, num_classes):
        seen.append(tf.reshape(images, [tf.shape(images)[0], -1]))
        return regularized.build(images, is_training, num_classes)

    return build


def _data_loss(x, labels, w, b, loss):
    p = _softmax(x @ w + b)
    onehot = np.eye(w.shape[1])[labels]
    if loss == MSE:  # the per-example mean squared error of regularized.py
        return np.mean(np.mean((p - onehot) ** 2, axis=1)), None
    xent = -np.log(p[np.arange(len(labels)), labels])
    return np.mean(xent), x.T @ (p - onehot) / len(labels)


@pytest.mark.parametrize("loss", ["", MSE, V1_XENT])
@pytest.mark.parametrize("towers", [1, 2])
@pytest.mark.parametrize("mode", MODES)
def test_reported_and_differentiated_loss_holds_every_term(mode, towers, loss, capsys):
    seen = []
    models.register("recorded_for_test", _inputs_recorder(seen))
    try:
        cfg = small_config(
            "unused", model="recorded_for_test", towers=towers, batch=8, variable_update=mode
        )
        g = _build(dataclasses.replace(cfg, loss=loss))
    finally:
        models._REGISTRY.pop("recorded_for_test")
    terms = g.loss_terms
    assert len(terms.regularization) == 1 and len(terms.collected) == 1
    assert "warning" not in capsys.readouterr().out  # V1_XENT's own collection entry is claimed
    labels = [_labels_of(t) for t in g.tower_losses]
    with g.graph.as_default():
        w_var = [v for v in v1.global_variables() if v.op.name.endswith("linear/w")][0]
        b_var = [v for v in v1.global_variables() if v.op.name.endswith("linear/b")][0]
    with v1.Session(graph=g.graph, config=v1.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        w, b = sess.run([w_var, b_var])  # reads no input
        step = sess.run([g.tower_losses, seen[:towers], labels, g.train_op])
        w_after = sess.run(w_var)
    tower_losses, xs, ys, _ = step
    own = regularized.REG_SCALE * np.sum(w**2) + regularized.DECAY * np.sum(w**2) / 2
    grads = []
    for i in range(towers):
        data_loss, grad = _data_loss(xs[i], ys[i], w, b, loss)
        np.testing.assert_allclose(tower_losses[i], data_loss + own, rtol=1e-5)
        grads.append(grad)
    if loss != MSE:  # one SGD step with the mean over towers of each tower's gradient
        total = np.mean(grads, axis=0) + (2 * regularized.REG_SCALE + regularized.DECAY) * w
        np.testing.assert_allclose(w_after, w - 0.1 * total, rtol=1e-4, atol=1e-6)


def _build(cfg):
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    return graph.build(
        cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, 0, loss=cfg.loss
    )


def _labels_of(tower_loss):
    """The labels the tower's data loss read: the input of its cross-entropy
    or of the user loss's one_hot (a breadth-first walk up the graph)."""
    todo, seen = [tower_loss.op], set()
    while todo:
        op = todo.pop(0)
        if op.type == "SparseSoftmaxCrossEntropyWithLogits":
            return op.inputs[1]
        if op.type == "OneHot":
            return op.inputs[0]
        seen.add(op.name)
        todo += [t.op for t in op.inputs if t.op.name not in seen]
    raise AssertionError("no labels found")


@pytest.mark.parametrize("mode", MODES)
def test_n_towers_equal_one_tower_with_the_models_own_losses(tmp_path, mode):
    def run(name, towers, batch):
        cfg = small_config(
            tmp_path / name,
            model=REGULARIZED,
            towers=towers,
            batch=batch,
            steps=4,
            variable_update=mode,
        )
        return train.run(cfg, gpus_found=0)

    one, two = run("one", 1, 16), run("two", 2, 8)
    np.testing.assert_allclose(two.losses, one.losses, rtol=2e-5)
    assert one.losses[-1] < one.losses[0]


def test_a_model_without_losses_of_its_own_keeps_its_cross_entropy_alone():
    g = _build(small_config("unused", model="mlp", towers=2))
    assert g.loss_terms.regularization == [] and g.loss_terms.collected == []
    assert g.tower_losses[0] is g.loss_terms.data  # no op added: the same numbers as before
    assert g.tower_losses[0].op.name == "tower_0/xent"


def test_the_start_up_line_names_every_loss_term(tmp_path, capsys):
    train.run(small_config(tmp_path, model=REGULARIZED, steps=1), gpus_found=0)
    out = capsys.readouterr().out
    assert (
        "loss per tower: softmax cross-entropy + 1 REGULARIZATION_LOSSES term(s) + "
        "1 'losses' collection term(s) (weight_loss)" in out
    )


def test_weight_decay_beside_the_models_own_regularization_is_refused():
    cfg = small_config("unused", model=REGULARIZED, weight_decay=1e-4)
    with pytest.raises(UserError, match=r"^--weight_decay=0.0001: the model adds its own"):
        _build(cfg)


@pytest.mark.parametrize(
    "model, loss",
    [
        (REGULARIZED, "with_regularization"),
        (f"{REGULARIZED}_scoped", "with_regularization"),  # tf-slim's l2_regularizer's scope
        (REGULARIZED, "total_loss"),
        ("mlp", "total_loss"),
    ],
)
def test_a_loss_that_adds_the_collections_again_is_refused(model, loss):
    # mlp has no terms of its own: get_total_loss() in tower 1 holds tower 0's loss
    cfg = small_config("unused", model=model, towers=2)
    flag = f"tests.user_models.regularized:{loss}"
    with pytest.raises(UserError, match=rf"^--loss={flag}: the loss it returns includes"):
        _build(dataclasses.replace(cfg, loss=flag))


def _build_with_stray(collection, make):
    """Builds two towers of regularized.build, each also putting ``make()``
    in ``collection`` under an absolute name scope (no tower's)."""

    def model(images, is_training, num_classes):
        with v1.name_scope("outside/"):
            v1.add_to_collection(collection, make())
        return regularized.build(images, is_training, num_classes)

    models.register("stray_for_test", model)
    try:
        _build(small_config("unused", model="stray_for_test", towers=2))
    finally:
        models._REGISTRY.pop("stray_for_test")


def test_a_losses_term_made_outside_the_towers_is_named(capsys):
    _build_with_stray("losses", lambda: tf.constant(1.0, name="stray"))
    assert "2 term(s) of the 'losses' collection were made outside" in capsys.readouterr().out


def test_a_regularizer_adding_to_losses_is_named_with_the_fix(capsys):
    def decay(w):  # the CIFAR-10 tutorial's weight decay, moved into a regularizer
        loss = tf.multiply(0.004, tf.nn.l2_loss(w), name="weight_loss")
        v1.add_to_collection("losses", loss)
        return loss

    def model(images, is_training, num_classes):
        flat = tf.reshape(images, [-1, 64])
        w = v1.get_variable("w", [64, num_classes], regularizer=decay)
        return tf.matmul(flat, w)

    models.register("decay_in_regularizer_for_test", model)
    try:
        _build(small_config("unused", model="decay_in_regularizer_for_test", towers=2))
    finally:
        models._REGISTRY.pop("decay_in_regularizer_for_test")
    out = capsys.readouterr().out
    assert "w/Regularizer/weight_loss:0" in out and "have it return the loss only" in out


def test_an_update_op_made_outside_the_towers_is_named(capsys):
    def update():
        count = v1.get_variable("count", [], trainable=False, initializer=v1.zeros_initializer())
        return count.assign_add(1.0)

    _build_with_stray(v1.GraphKeys.UPDATE_OPS, update)
    out = capsys.readouterr().out
    assert "warning: 2 UPDATE_OPS entries were made outside every tower's name scope" in out


CROP = "tests.user_models.inputs:crop_flip"


@pytest.mark.parametrize("synthetic", [False, True])
def test_preprocess_sets_the_input_and_a_resumed_run_crops_as_before(tmp_path, synthetic):
    def run(name, steps):
        cfg = small_config(
            tmp_path / name,
            towers=2,
            steps=steps,
            batch=8,
            use_synthetic_data=synthetic,
            preprocess=CROP,
            deterministic=True,
        )
        return train.run(cfg, gpus_found=0)

    try:
        whole = run("whole", 6)
        run("resumed", 3)
        resumed = run("resumed", 6)
    finally:  # op determinism is process-wide: later tests build unseeded random ops
        tf_config.disable_op_determinism()
    assert resumed.losses == whole.losses[3:]  # the same crops after the restart
    reader = tf.train.load_checkpoint(str(tmp_path / "whole"))
    assert reader.get_variable_to_shape_map()["fc1/weights"] == [36, 256]  # 6x6 crops
    assert whole.summary["test_accuracy"] > 0.0


def test_stateful_random_ops_in_preprocess_are_one_warning_line(tmp_path, capsys):
    stateful = "tests.user_models.inputs:tutorial_style"
    train.run(small_config(tmp_path / "a", steps=1, preprocess=stateful), gpus_found=0)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("warning: --pre")]
    assert lines == [
        f"warning: --preprocess={stateful} draws from stateful random ops (RandomUniform): "
        "they follow TensorFlow's op seeds, not its seed argument, so a resumed run and the "
        "TF2 path augment differently; use the seed with tf.image.stateless_random_* / "
        "tf.random.stateless_*"
    ]
    train.run(small_config(tmp_path / "b", steps=1, preprocess=CROP), gpus_found=0)
    assert "warning: --preprocess" not in capsys.readouterr().out


@pytest.mark.parametrize("mode", MODES)
def test_a_legacy_layers_model_trains_on_the_towers_with_its_batch_norm_and_regularizer(
    tmp_path, mode, capsys
):
    cfg = small_config(
        tmp_path,
        model="tests.user_models.legacy_layers_model:build",
        towers=2,
        steps=8,
        variable_update=mode,
        optimizer="momentum",
    )
    result = train.run(cfg, gpus_found=0)
    out = capsys.readouterr().out
    assert "+ 1 REGULARIZATION_LOSSES term(s)" in out and "UPDATE_OPS" not in out
    reader = tf.train.load_checkpoint(str(tmp_path))
    for name in ("bn1/moving_mean", "bn2/moving_variance"):
        start = 0.0 if name.endswith("mean") else 1.0
        assert np.max(np.abs(reader.get_tensor(name) - start)) > 1e-3, name  # they moved
    assert result.losses[-1] < result.losses[0]
