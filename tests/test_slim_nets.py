"""tf-slim's nets (``tf_slim.nets``, run unchanged) as a user's ``--model``.

The wrappers are tests/user_models/slim_nets.py. What tf-slim adds over plain
``get_variable`` code: its conv layers (TensorFlow's private legacy layers)
make a kernel's regularizer term inside the name scope of the tower that
creates the variable, and its batch_norm (tf1_train.compat's layer after
``install()``, or its own fused one calling TensorFlow's
``assign_moving_average``) updates the moving averages per tower.
Expected values are recomputed in numpy from the variables and activations
the step used.
"""

import functools

import numpy as np
import pytest
import tensorflow as tf
import tf_slim as slim

import tf1_train.compat
from tests.conftest import small_config
from tests.user_models import hand_batch_norm, slim_nets
from tf1_train import data, devices, export, graph, models, naming, train
from tf1_train.errors import UserError

# slim_nets calls install() at import, as a user's module does: collecting
# this file must not change the process the other test files run in.
tf1_train.compat.uninstall()
v1 = tf.compat.v1


@pytest.fixture(scope="module", autouse=True)
def _installed():
    """install() for this file's tests only."""
    tf1_train.compat.install()
    yield
    tf1_train.compat.uninstall()


MODES = ["parameter_server", "replicated"]
RESNET = "tests.user_models.slim_nets:resnet"


def _build(cfg):
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    return graph.build(cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, 0)


def _tower_prefix(mode, i):
    return f"{naming.replica_scope(i)}/" if mode == "replicated" else ""


# (model, the scope of its first batch norm, its decay)
SLIM_BN = "resnet/conv1/BatchNorm/"
BATCH_NORMS = {
    "UPDATE_OPS": (RESNET, SLIM_BN, slim_nets.BN_DECAY),
    "in_place": (f"{RESNET}_in_place_updates", SLIM_BN, slim_nets.BN_DECAY),
    "zero_debias": (f"{RESNET}_debiased", SLIM_BN, slim_nets.BN_DECAY),
    "hand_written": ("tests.user_models.hand_batch_norm:build", "bn1/", hand_batch_norm.DECAY),
}


@functools.cache
def _one_step(model, bn_scope, mode):
    """One training step of ``model`` on 2 towers: the variables before and
    after, each tower's loss and data loss, and the input of its batch norm
    ``bn_scope`` (the same graph and step serve several tests)."""
    g = _build(small_config("unused", model=model, towers=2, batch=8, variable_update=mode))
    bn_inputs = []
    for i in range(2):
        ops = [
            op
            for op in g.graph.get_operations()
            if op.type.startswith("FusedBatchNorm") and f"tower_{i}/{bn_scope}" in op.name
        ]
        bn_inputs.append(ops[0].inputs[0])
    data_losses = [t.op.inputs[0] for t in g.tower_losses]
    with g.graph.as_default():
        variables = {v.op.name: v for v in v1.global_variables()}
    with v1.Session(graph=g.graph, config=v1.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        before = sess.run(variables)
        fetched = sess.run([g.tower_losses, data_losses, bn_inputs, g.train_op])
        after = sess.run(variables)
    losses, data_loss, xs, _ = fetched
    return before, after, losses, data_loss, xs


@pytest.mark.parametrize("mode", MODES)
def test_every_tower_includes_every_kernels_regularizer_once(mode):
    before, _, losses, data_loss, _ = _one_step(*BATCH_NORMS["UPDATE_OPS"][:2], mode)
    for i in range(2):
        prefix = _tower_prefix(mode, i)
        kernels = [
            w for name, w in before.items() if name.startswith(prefix) and name.endswith("weights")
        ]
        assert len(kernels) == 10  # root conv, 2 x (shortcut + 3 convs), logits
        l2 = slim_nets.WEIGHT_DECAY * sum(np.sum(w.astype(np.float64) ** 2) / 2 for w in kernels)
        np.testing.assert_allclose(losses[i] - data_loss[i], l2, rtol=1e-4)


@pytest.mark.parametrize("batch_norm", sorted(BATCH_NORMS))
@pytest.mark.parametrize("mode", MODES)
def test_moving_statistics_follow_the_mean_over_towers(mode, batch_norm):
    model, bn_scope, decay = BATCH_NORMS[batch_norm]
    before, after, _, _, xs = _one_step(model, bn_scope, mode)
    n = xs[0].shape[0] * xs[0].shape[1] * xs[0].shape[2]
    mean = np.mean([x.mean(axis=(0, 1, 2)) for x in xs], axis=0)
    var = np.mean([x.var(axis=(0, 1, 2)) * n / (n - 1) for x in xs], axis=0)  # fused: Bessel
    for i in range(2 if mode == "replicated" else 1):  # every copy the same
        name = f"{_tower_prefix(mode, i)}{bn_scope}moving_"
        m0, v0 = before[name + "mean"], before[name + "variance"]
        if batch_norm == "zero_debias":  # biased = (1 - d) * mean, divided by 1 - d**1
            m0 = mean
        np.testing.assert_allclose(after[name + "mean"], decay * m0 + (1 - decay) * mean, atol=1e-5)
        np.testing.assert_allclose(
            after[name + "variance"], decay * v0 + (1 - decay) * var, rtol=1e-4
        )


@pytest.mark.parametrize("mode", MODES)
def test_n_towers_equal_one_tower_with_slims_regularizers(tmp_path, mode):
    no_bn = "tests.user_models.slim_nets:resnet_without_batch_norm"
    one, two = (
        train.run(
            small_config(tmp_path / str(n), no_bn, n, 16 // n, 3, variable_update=mode),
            gpus_found=0,
        )
        for n in (1, 2)
    )
    np.testing.assert_allclose(two.losses, one.losses, rtol=2e-5)


def _slim_saver_checkpoint(path, image_shape, num_classes):
    """A plain TF1 script of the user's: the net, its moving statistics set
    away from 0 and 1, a tf.train.Saver; returns its variables' values."""
    with tf.Graph().as_default():
        images = v1.placeholder(tf.float32, [None, *image_shape])
        slim_nets.resnet(images, True, num_classes)
        rng = np.random.default_rng(0)
        for var in v1.global_variables():
            if "moving_" in var.op.name:
                var.load_later = rng.uniform(0.5, 1.5, var.shape).astype(np.float32)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for var in v1.global_variables():
                if hasattr(var, "load_later"):
                    var.load(var.load_later, sess)
            values = sess.run({v.op.name: v for v in v1.global_variables()})
            prefix = v1.train.Saver().save(sess, str(path / "slim.ckpt"))
    return prefix, values


def _slim_inference(checkpoint, batch, num_classes):
    """The user's own inference graph: the net with is_training=False, Saver restore."""
    with tf.Graph().as_default():
        logits = slim_nets.resnet(tf.constant(batch), False, num_classes)
        with v1.Session() as sess:
            v1.train.Saver().restore(sess, checkpoint)
            return sess.run(logits)


def test_a_slim_saver_checkpoint_starts_a_replicated_run_and_exports(tmp_path):
    prefix, values = _slim_saver_checkpoint(tmp_path, (8, 8, 1), 10)
    cfg = small_config(
        tmp_path / "run", RESNET, towers=2, steps=1, learning_rate=1e-30,
        variable_update="replicated", init_checkpoint=prefix,
    )  # fmt: skip
    train.run(cfg, gpus_found=0)
    checkpoint = tf.train.latest_checkpoint(str(tmp_path / "run"))
    reader = tf.train.load_checkpoint(checkpoint)
    for name, value in values.items():  # lr 1e-30: no weight moved by an ulp (zeros by 1e-30)
        if "moving_" not in name:
            np.testing.assert_allclose(reader.get_tensor(name), value, 1e-7, 1e-20, err_msg=name)
    moved = reader.get_tensor("resnet/conv1/BatchNorm/moving_mean")
    assert not np.allclose(moved, values["resnet/conv1/BatchNorm/moving_mean"])
    batch = np.random.default_rng(1).uniform(size=(4, 8, 8, 1)).astype(np.float32)
    (tmp_path / "sm").mkdir()  # empty
    with pytest.raises(UserError, match="^checkpoint=.*: the directory holds no TF1 checkpoint"):
        export.export_saved_model(str(tmp_path / "sm"), RESNET, (8, 8, 1), 10, str(tmp_path / "x"))
    run_dir = str(tmp_path / "run")  # a train_dir: its latest checkpoint
    exported = export.export_saved_model(run_dir, RESNET, (8, 8, 1), 10, str(tmp_path / "out"))
    served = tf.saved_model.load(exported).signatures["serving_default"](tf.constant(batch))
    expected = _slim_inference(checkpoint, batch, 10)
    np.testing.assert_allclose(served["logits"].numpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_slim_nets_output_as_it_comes_is_one_line_with_the_fix():
    cfg = small_config("unused", model="tests.user_models.slim_nets:unsqueezed")
    with pytest.raises(UserError, match=r"\[16, 1, 1, 10\].*tf\.squeeze\(logits, \[1, 2\]\)"):
        _build(cfg)

    def as_returned(images, is_training, num_classes):  # (logits, end_points)
        with v1.variable_scope("net"):
            logits = tf.squeeze(slim_nets.unsqueezed(images, is_training, num_classes), [1, 2])
        return logits, {"logits": logits}

    models.register("pair_for_test", as_returned)
    try:
        pair = r"returned \(logits, end_points\).*return the logits alone"
        with pytest.raises(UserError, match=pair):
            _build(small_config("unused", model="pair_for_test"))
    finally:
        models._REGISTRY.pop("pair_for_test")


@pytest.mark.parametrize("collections, refused", [(["my_vars"], True), (None, False)])
def test_a_variable_no_initializer_covers_is_one_line(collections, refused):
    def model(images, is_training, num_classes):
        flat = slim.flatten(images)
        w = slim.variable("w", [int(flat.shape[-1]), num_classes], collections=collections)
        count = slim.local_variable(0.0, name="count")  # LOCAL_VARIABLES: initialized
        with tf.control_dependencies([count.assign_add(1.0)]):
            return tf.matmul(flat, w)

    models.register("collections_for_test", model)
    try:
        cfg = small_config("unused", model="collections_for_test", towers=2)
        if refused:  # the first step failed with FailedPreconditionError: uninitialized
            with pytest.raises(UserError, match=r"variable 'w' \(at .*\) is in neither the GLOB"):
                _build(cfg)
        else:
            _build(cfg)
    finally:
        models._REGISTRY.pop("collections_for_test")
