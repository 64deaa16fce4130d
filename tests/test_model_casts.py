"""Models that cast themselves to float16 (tf1_train/model_casts.py): their
own float16 custom getter and input cast, as official ResNet, NVIDIA's
ConvNets and tf_cnn_benchmarks wrote them (tests/user_models/self_cast.py).

Under --precision=fp16 the model's getter and tf1_train's compose (one cast
per weight, float32 variables under the TF1 names, tf1_train's loss scale
once); under fp32 or bf16 the run, which would scale no loss, is refused.
"""

import collections
import re

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import load_random_weights, small_config
from tests.user_models import self_cast
from tf1_train import data, devices, export, graph, model_casts, precision, train
from tf1_train.errors import UserError
from tf1_train.tf2 import models as tf2_models

v1 = tf.compat.v1
MODEL = "tests.user_models.self_cast:"


def _cfg(tmp_path, model, prec, towers=2, mode="parameter_server", **kw):
    return small_config(
        tmp_path, MODEL + model, towers=towers, variable_update=mode, precision=prec, **kw
    )


def _build(cfg):
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    args = (cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed)
    return plan, graph.build(*args, precision_cfg=cfg.precision)


def _tf1_names(build=self_cast.build):
    """The variables the user's TF1 program made (its checkpoint's names)."""
    with tf.Graph().as_default():
        build(tf.zeros([2, 8, 8, 1]), True, 10)
        return {v.op.name for v in v1.global_variables()}


@pytest.mark.parametrize(
    "prec, refused",
    [("fp32", True), ("bf16", True), ("fp16", False), ("auto", False)],
)
def test_float16_compute_is_refused_only_where_no_loss_is_scaled(prec, refused):
    with tf.Graph().as_default() as g:
        x = tf.zeros([2, 3], tf.float16)
        tf.matmul(x, tf.cast(tf.ones([3, 4]), tf.float16))
        a, b = tf.zeros([2, 2, 3], tf.float16), tf.zeros([2, 3, 4], tf.float16)
        tf.matmul(a, b)  # batched
        tf.raw_ops.BatchMatMulV3(x=a, y=b, Tout=tf.float16)  # its types: Ta, Tb, Tout
        tf.matmul(tf.zeros([2, 3]), tf.ones([3, 4]))  # a float32 one says nothing,
        tf.matmul(tf.zeros([2, 3], tf.bfloat16), tf.ones([3, 4], tf.bfloat16))  # nor bfloat16
    p = precision.Precision("fp32", auto=object()) if prec == "auto" else precision.Precision(prec)
    assert [o.type for o in model_casts.float16_compute(g.get_operations())] == [
        "MatMul",
        "BatchMatMulV2",
        "BatchMatMulV3",
    ]
    if not refused:
        model_casts.check_towers(g.get_operations(), p, "--model=m")
        return
    with pytest.raises(UserError, match=r"--model=m: computes in float16 by itself") as e:
        model_casts.check_towers(g.get_operations(), p, "--model=m")
    assert f"--precision={prec} scales no loss" in str(e.value)
    assert "run it with --precision=fp16" in str(e.value)
    assert ("bfloat16" in str(e.value)) == (prec == "bf16")


@pytest.mark.parametrize(
    "model, prec",
    [("build", "fp32"), ("build_float32_logits", "fp32"), ("build_scope_dtype", "bf16")],
)
def test_a_model_computing_in_float16_by_itself_needs_precision_fp16(tmp_path, model, prec):
    """Its float32 logits (tf_cnn_benchmarks' model cast them) hide nothing."""
    with pytest.raises(UserError, match=rf"--model={MODEL}{model}: computes in float16"):
        _build(_cfg(tmp_path, model, prec))
    _build(_cfg(tmp_path, "build_plain", prec))  # the same model without its casts trains


def _weight_casts(g):
    """(variable, tower or 'eval') -> float32-to-float16 casts of its reads there."""
    count = collections.Counter()
    for op in g.get_operations():
        if op.type != "Cast" or op.get_attr("DstT") != tf.float16:
            continue
        read = op.inputs[0].op
        if read.type != "ReadVariableOp":
            continue
        var = re.sub(r"^v\d+/", "", read.inputs[0].op.name)  # a replicated copy's prefix
        for user in {re.search(r"tower_\d+|eval", c.name)[0] for c in op.outputs[0].consumers()}:
            count[var, user] += 1
    return count


@pytest.mark.parametrize(
    "model, mode",
    [("build", "parameter_server"), ("build_scope_dtype", "replicated"),
     ("build_layers", "parameter_server")],
)  # fmt: skip
def test_under_fp16_its_getter_and_tf1_trains_compose_to_one_cast(tmp_path, model, mode):
    _, g = _build(_cfg(tmp_path, model, "fp16", mode=mode))
    names = _tf1_names(getattr(self_cast, model))
    assert set(g.model_variables) == names  # its TF1 checkpoint's names, once
    assert all(v.dtype.base_dtype == tf.float32 for v in g.saved_variables.values()
               if v.dtype.base_dtype.is_floating)  # fmt: skip
    weights = [n for n in names if n.endswith(("weights", "biases", "kernel", "bias"))]
    assert len(weights) == 3
    expected = {(w, where): 1 for w in weights for where in ("tower_0", "tower_1", "eval")}
    assert dict(_weight_casts(g.graph)) == expected  # batch norm's gamma and beta: none
    ops = g.graph.get_operations()
    assert len([o for o in ops if o.name.endswith("/scaled_loss")]) == 2  # once per tower
    checks = [o for o in ops if o.type == "IsFinite" and o.name.startswith("loss_scale")]
    assert checks and all(o.get_attr("T") == tf.float32 for o in checks)  # float32 gradients


def _losses_and_eval(tmp_path, model, decay, steps=3):
    cfg = _cfg(tmp_path / model, model, "fp16", loss_scale="128", moving_average_decay=decay)
    plan, g = _build(cfg)
    config = devices.session_config(cfg.devices, plan)
    with v1.Session(graph=g.graph, config=config) as sess:
        sess.run(g.init_op)
        sess.run(g.input_init)
        losses = [sess.run([g.train_op, g.loss])[1] for _ in range(steps)]
        sess.run(g.eval_init)
        correct = sess.run(g.eval_correct)
        weights = sess.run(g.model_variables)
    return losses, correct, weights


@pytest.mark.parametrize("decay", [0.0, 0.5])
def test_under_fp16_it_trains_bit_identical_to_the_same_model_without_its_casts(tmp_path, decay):
    """Its own casts of tf1_train's float16 casts make no op: train and eval
    (of the weights' moving averages too) match."""
    mine, plain = (_losses_and_eval(tmp_path, m, decay) for m in ("build", "build_plain"))
    assert mine[0] == plain[0] and mine[1] == plain[1]
    for name, value in plain[2].items():
        np.testing.assert_array_equal(mine[2][name], value)
    assert len(set(mine[0])) > 1  # it trained


def _tf1_checkpoint(directory):
    """(prefix, trainable name -> value) of a checkpoint its TF1 program wrote."""
    with tf.Graph().as_default():
        self_cast.build(tf.zeros([2, 8, 8, 1]), True, 10)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = load_random_weights(sess, 3)
            return v1.train.Saver().save(sess, str(directory / "model.ckpt")), values


def test_its_tf1_checkpoint_warm_starts_an_fp16_run(tmp_path, capsys):
    """The checkpoint its TF1 program wrote, under the names its getter made."""
    prefix, values = _tf1_checkpoint(tmp_path / "tf1")
    cfg = _cfg(tmp_path / "run", "build", "fp16", towers=1, steps=1, learning_rate=1e-30,
               init_checkpoint=prefix)  # fmt: skip
    train.run(cfg, gpus_found=0)
    assert f"init: 7 model variable(s) from {prefix}" in capsys.readouterr().out
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(tmp_path / "run")))
    for name, value in values.items():  # lr 1e-30: the step moved no weight by an ulp
        np.testing.assert_array_equal(reader.get_tensor(name), value)


def test_a_tf2_twin_computing_in_float16_by_itself_is_refused():
    """Outside --precision=fp16 nothing would scale a self-casting twin's loss."""
    shape, ref = (8, 8, 1), "tests.user_models.twins:"
    for compute in (tf.float32, tf.bfloat16):
        with pytest.raises(UserError, match=rf"{ref}HalfTinyTwin: computes in float16 by"):
            tf2_models.build(
                "tests.user_models.tiny:build", shape, 10, ref + "HalfTinyTwin", compute
            )
    tf2_models.build("tests.user_models.tiny:build", shape, 10, ref + "HalfTinyTwin", tf.float16)
    tf2_models.build("tests.user_models.tiny:build", shape, 10, ref + "TinyTwin")


def test_a_twin_computing_partly_in_float32_gets_one_line(capsys):
    """Some of its matmuls in the run's type, some not (its choice): said, not refused."""

    def matmuls(first, second):
        with tf.Graph().as_default() as g:
            tf.matmul(tf.zeros([2, 2], first), tf.zeros([2, 2], first))
            tf.matmul(tf.zeros([2, 2], second), tf.zeros([2, 2], second))
            return g.get_operations()

    model_casts.check_twin(matmuls(tf.bfloat16, tf.float32), "--tf2_model=m:C", tf.bfloat16)
    out = capsys.readouterr().out
    assert out.startswith("note: --tf2_model=m:C: 1 of its 2 matmuls and convolutions compute ")
    assert "in float32, not bfloat16 (MatMul MatMul_1)" in out
    with pytest.raises(UserError, match="computes in float32 though --precision=bf16"):
        model_casts.check_twin(matmuls(tf.float32, tf.float32), "--tf2_model=m:C", tf.bfloat16)


def test_resource_variables_have_no_ref_for_a_getter_to_copy():
    """NVIDIA's getter set ``cast._ref = variable._ref`` (a reference
    variable's); a 2.21 graph's ``get_variable`` makes resource variables."""
    with tf.Graph().as_default():
        var = v1.get_variable("w", [2])
        with pytest.raises(AttributeError, match="_ref"):
            tf.cast(var, tf.float16)._ref = var._ref


def test_its_export_serves_float32_logits_and_probabilities(tmp_path):
    """Its float16 logits are cast before the softmax, as for its loss."""
    prefix, _ = _tf1_checkpoint(tmp_path / "tf1")
    path = export.export_saved_model(prefix, MODEL + "build", (8, 8, 1), 10, str(tmp_path / "x"))
    images = np.random.RandomState(0).rand(4, 8, 8, 1).astype(np.float32)
    out = tf.saved_model.load(path).signatures["serving_default"](images=tf.constant(images))
    assert out["logits"].dtype == out["probabilities"].dtype == tf.float32
    logits = out["logits"].numpy().astype(np.float64)
    softmax = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(
        out["probabilities"], softmax / softmax.sum(1, keepdims=True), rtol=1e-5
    )
