"""Mixed precision in the TF1 graph (tf1_train/precision.py): float32
variables, towers in bfloat16 or float16, fp16's dynamic loss scale.

Graph tests build their own tf.Graph; the runs use train.run in process,
except the saved-loss-scale ones: op determinism and the TF2 path's devices
need a process of their own, in which TensorFlow has not initialised
(tests/precision_worker.py resume, once per path, forked from the tests'
warm server).
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator as ea

from tests import precision_worker as worker
from tests.conftest import run_cli, small_config
from tf1_train import config as cfglib
from tf1_train import data, devices, graph, precision, train
from tf1_train.errors import TrainingDiverged, UserError

v1 = tf.compat.v1
COMPUTE = {"bf16": tf.bfloat16, "fp16": tf.float16}


def _cfg(tmp_path, name="run", prec="fp32", loss_scale="", **kw):
    cfg = small_config(tmp_path / name, **kw)
    return cfg.__class__(
        **{**cfg.__dict__, "precision": cfglib.PrecisionConfig(prec, loss_scale)}
    ).validate()


def _build(cfg, gpus=0):
    plan = devices.plan_devices(cfg.devices, gpus)
    g = graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan,
        cfg.run.seed, precision_cfg=cfg.precision,
    )  # fmt: skip
    return plan, g


def _nodes(g):
    """Every node's name, op, device, inputs and dtype attributes (two builds
    in one process differ only in generated names like dataset ids)."""
    return [
        (n.name, n.op, n.device, list(n.input), sorted(k for k in n.attr if k in ("T", "dtype")))
        for n in g.graph.as_graph_def().node
    ]


def test_fp32_builds_exactly_the_graph_without_precision(tmp_path):
    cfg = _cfg(tmp_path, model="lenet5", towers=2, variable_update="replicated")
    plan = devices.plan_devices(cfg.devices, 0)
    source = data.load_source(cfg.data)
    args = (cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed)
    assert _nodes(graph.build(*args)) == _nodes(graph.build(*args, precision_cfg=cfg.precision))


@pytest.mark.parametrize("prec", ["bf16", "fp16"])
@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_towers_compute_in_the_type_on_their_gpus_variables_stay_float32(tmp_path, prec, mode):
    """A GPU plan (graph only: no GPU needed to build it)."""
    cfg = _cfg(tmp_path, prec=prec, model="resnet20", towers=2, variable_update=mode,
               dataset="cifar10", use_synthetic_data=True, device="auto")  # fmt: skip
    plan, g = _build(cfg, gpus=2)
    ops = g.graph.get_operations()
    assert all(v.dtype.base_dtype == tf.float32 for v in g.saved_variables.values()
               if v.dtype.base_dtype.is_floating)  # fmt: skip
    for i, device in enumerate(plan.tower_devices):
        convs = [o for o in ops if o.type == "Conv2D" and f"tower_{i}/" in o.name]
        assert convs and all(o.get_attr("T") == COMPUTE[prec] for o in convs)
        assert all(device.lower() in o.device.lower() for o in convs)
        casts = [o for o in ops if o.type == "Cast" and f"tower_{i}/" in o.name]
        assert casts and all(device.lower() in o.device.lower() for o in casts)
        bn = [o for o in ops if o.type == "FusedBatchNormV3" and f"tower_{i}/" in o.name]
        assert bn and all(o.get_attr("U") == tf.float32 for o in bn)  # statistics in float32
    assert all(loss.dtype == tf.float32 for loss in g.tower_losses)
    scale_ops = [o for o in ops if o.name.startswith("loss_scale/") and o.type == "VarHandleOp"]
    assert (len(scale_ops) == 3) == (prec == "fp16")  # scale, good steps, skipped steps
    assert all(o.device == g.global_step.device for o in scale_ops)


def _session(g, plan, cfg):
    sess = v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan))
    sess.run(g.init_op)
    sess.run(g.post_init_ops)
    sess.run(g.input_init)
    return sess


def test_an_overflow_halves_the_scale_and_skips_that_update_on_every_tower(tmp_path):
    cfg = _cfg(tmp_path, prec="fp16", model="lenet5", towers=2, variable_update="replicated")
    plan, g = _build(cfg)
    ls = g.precision.loss_scale
    copies = [v for v in _trainables(g) if "conv1/weights" in v.op.name]
    assert len(copies) == 2  # v0/ and v1/: one per tower
    with _session(g, plan, cfg) as sess:
        ls.scale.load(3e38, sess)  # the gradients of loss * 3e38 overflow float16
        before = sess.run(copies)
        sess.run(g.train_op)
        after = sess.run(copies)
        for b, a in zip(before, after):
            np.testing.assert_array_equal(a, b)
        assert sess.run(ls.scale) == pytest.approx(1.5e38, rel=1e-6)
        assert sess.run([ls.skipped, g.global_step]) == [1, 1]
        ls.scale.load(1024.0, sess)
        sess.run(g.train_op)  # and training goes on
        later = sess.run(copies)
        assert not np.array_equal(later[0], after[0])
        np.testing.assert_array_equal(later[0], later[1])
        assert sess.run([ls.skipped, g.global_step, ls.good_steps]) == [1, 2, 1]


def _trainables(g):
    with g.graph.as_default():
        return v1.trainable_variables()


def _v1_rule(finite_steps, initial, period):
    """The v1 DynamicLossScale rule, written out: the scales after each step."""
    scale, good, out = initial, 0, []
    for finite in finite_steps:
        if finite:
            good += 1
            if good >= period:
                scale, good = scale * 2, 0
        else:
            scale, good = max(scale / 2, 1.0), 0
        out.append(scale)
    return out


def test_dynamic_loss_scale_follows_the_v1_rule():
    steps = [True, True, True, False, True, False, False, True, True, True]
    with tf.Graph().as_default():
        p = precision.make("fp16", "dynamic", "/cpu:0", period=3)
        finite = v1.placeholder(tf.bool, [])
        op = precision._update_scale(p.loss_scale, finite)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            got = []
            for f in steps:
                sess.run(op, {finite: f})
                got.append(sess.run(p.loss_scale.scale))
            skipped = sess.run(p.loss_scale.skipped)
    assert got == _v1_rule(steps, precision.INITIAL_SCALE, 3)
    assert skipped == steps.count(False)


def test_loss_terms_from_cast_weights_are_summed_in_float32(tmp_path):
    def model(images, is_training, num_classes):
        from tf1_train.models import layers

        logits = layers.dense(tf.reshape(images, [-1, 64]), num_classes, "fc")
        with v1.variable_scope("fc", reuse=True):
            w = v1.get_variable("weights")  # through the cast getter: bfloat16
        v1.add_to_collection(v1.GraphKeys.LOSSES, 1e-3 * tf.nn.l2_loss(w))
        return logits

    with tf.Graph().as_default():
        from tf1_train import towers, variable_update

        cfg = _cfg(tmp_path, prec="bf16")
        plan = devices.plan_devices(cfg.devices, 0)
        images = tf.zeros([4, 8, 8, 1])
        labels = tf.zeros([4], tf.int32)
        built = towers.build_towers(
            model, [(images, labels)], 10, plan, variable_update.get("parameter_server"), 0.0,
            precision=precision.make("bf16", "", "/cpu:0"),
        )  # fmt: skip
    term = built[0].terms.collected[0]
    assert term.dtype == tf.bfloat16  # computed from the cast weight
    assert built[0].loss.dtype == tf.float32
    assert built[0].loss.op.type == "AddN"
    assert all(i.dtype == tf.float32 for i in built[0].loss.op.inputs)


def test_checkpoints_restore_from_bf16_into_fp32_and_back(tmp_path):
    first = train.run(_cfg(tmp_path, "ck", "bf16", model="lenet5", steps=6), gpus_found=0)
    second = train.run(_cfg(tmp_path, "ck", "fp32", model="lenet5", steps=12), gpus_found=0)
    third = train.run(_cfg(tmp_path, "ck", "bf16", model="lenet5", steps=18), gpus_found=0)
    assert [r.summary["resumed_from_step"] for r in (first, second, third)] == [0, 6, 12]
    assert third.summary["global_step"] == 18
    assert len(second.losses) == len(third.losses) == 6


def test_skipped_overflow_steps_do_not_stop_the_run_but_a_divergence_does(tmp_path):
    cfg = _cfg(tmp_path, "skip", "fp16", loss_scale="1e30", model="lenet5", steps=4)
    result = train.run(cfg, gpus_found=0)
    with open(os.path.join(cfg.run.train_dir, "run_summary.json")) as f:
        summary = json.load(f)
    assert summary["skipped_steps"] == 4 and summary["loss_scale"] == pytest.approx(1e30)
    acc = ea.EventAccumulator(cfg.run.train_dir, size_guidance={ea.SCALARS: 0}).Reload()
    assert [e.value for e in acc.Scalars("skipped_steps")][-1] == 4  # TensorBoard too
    assert acc.Scalars("loss_scale")[-1].value == pytest.approx(1e30)
    assert summary["stopped_by"] == "train_steps" and result.summary["global_step"] == 4
    bad = _cfg(tmp_path, "nan", "fp16", model="lenet5", steps=40, learning_rate=1e4)
    with pytest.raises(TrainingDiverged):
        train.run(bad, gpus_found=0)


@pytest.mark.parametrize(
    "fields, flag",
    [
        (("fp32", "dynamic"), "--loss_scale"),
        (("bf16", "128"), "--loss_scale"),
        (("fp16", "0.5"), "--loss_scale"),
        (("fp16", "big"), "--loss_scale"),
        (("fp8", ""), "--precision"),
        (("bf16", "", True), "--auto_mixed_precision"),
    ],
)
def test_bad_precision_input_names_the_flag(fields, flag):
    with pytest.raises(UserError, match=f"^{flag}:"):
        cfglib.PrecisionConfig(*fields).validate()


def test_lenet5_on_digits_in_bf16_reaches_the_fp32_accuracy(tmp_path):
    kw = dict(model="lenet5", steps=1500, batch=32, optimizer="momentum", learning_rate=0.02)
    fp32 = train.run(_cfg(tmp_path, "a", "fp32", **kw), gpus_found=0)
    bf16 = train.run(_cfg(tmp_path, "b", "bf16", **kw), gpus_found=0)
    acc32, acc16 = fp32.summary["test_accuracy"], bf16.summary["test_accuracy"]
    assert acc32 > 0.8
    assert abs(acc16 - acc32) <= 0.01, (acc32, acc16)


def test_auto_mixed_precision_on_a_cpu_wraps_the_optimizer_and_changes_no_op(tmp_path):
    """enable_mixed_precision_graph_rewrite turns on Grappler's float16 pass,
    which needs a GPU: on a CPU the only change is the loss scale, a power of
    two, so the losses equal the fp32 run's bit for bit."""
    plain = train.run(_cfg(tmp_path, "plain", model="lenet5", steps=5), gpus_found=0)

    def auto_cfg(name, steps):
        cfg = _cfg(tmp_path, name, model="lenet5", steps=steps)
        auto = cfglib.PrecisionConfig(auto_mixed_precision=True)
        return cfg.__class__(**{**cfg.__dict__, "precision": auto})

    try:
        auto = train.run(auto_cfg("auto", 5), gpus_found=0)
        # A plain run's checkpoint has no loss scale: it starts at 2^15.
        resumed = train.run(auto_cfg("plain", 7), gpus_found=0)
    finally:  # the rewrite is process-wide state: leave none behind
        v1.mixed_precision.disable_mixed_precision_graph_rewrite()
    assert list(auto.losses) == list(plain.losses)
    assert auto.summary["loss_scale"] == precision.INITIAL_SCALE
    assert resumed.summary["resumed_from_step"] == 5 and len(resumed.losses) == 2
    # v1's loss scale is saved under our scale's names (5 finite steps counted).
    saved = _saved(tmp_path / "auto" / "model.ckpt-5")
    assert saved["loss_scale/scale"] == precision.INITIAL_SCALE
    assert saved["loss_scale/good_steps"] == 5 and "loss_scale/skipped_steps" not in saved


@pytest.mark.parametrize("fields", [("fp16", ""), ("fp32", "", True)])
def test_a_loss_scale_with_sync_replicas_is_refused(fields):
    cluster = cfglib.ClusterConfig(
        ps_hosts=("127.0.0.1:1",), worker_hosts=("127.0.0.1:2",), job_name="worker",
        sync_replicas=True,
    )  # fmt: skip
    cfg = cfglib.Config(cluster=cluster, precision=cfglib.PrecisionConfig(*fields))
    with pytest.raises(UserError, match="^--sync_replicas: a loss scale"):
        cfg.validate()
    ok = cfglib.Config(cluster=cluster, precision=cfglib.PrecisionConfig("bf16"))
    assert ok.validate() is ok


def test_eval_reads_the_weight_averages_in_the_compute_type(tmp_path):
    cfg = _cfg(tmp_path, prec="bf16", model="resnet20", dataset="cifar10",
               use_synthetic_data=True, moving_average_decay=0.9)  # fmt: skip
    _, g = _build(cfg)
    ops = g.graph.get_operations()
    bn = [o for o in ops if o.type == "FusedBatchNormV3" and o.name.startswith("eval/")]
    assert bn and all(o.get_attr("T") == tf.bfloat16 for o in bn)
    assert all(o.get_attr("U") == tf.float32 for o in bn)  # scale, offset, statistics
    casts = [o for o in ops if o.type == "Cast" and o.get_attr("DstT") == tf.bfloat16]
    read = [i.op.inputs[0].name for o in casts for i in o.inputs if i.op.type == "ReadVariableOp"]
    assert any("ExponentialMovingAverage" in name for name in read)  # the averages, cast


def test_a_cluster_keeps_its_loss_scale_with_the_global_step_on_the_ps(tmp_path):
    """Saved state: the chief saves and restores it, the other workers wait for
    it to be ready like every variable (one on a worker's task would never be)."""
    cfg = _cfg(tmp_path, prec="fp16", model="mlp")
    plan = devices.for_cluster(
        devices.plan_devices(cfg.devices, 0), ["127.0.0.1:1"], ["127.0.0.1:2", "127.0.0.1:3"], 1
    )
    g = graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan,
        cfg.run.seed, worker=graph.Worker(1, 2, False), precision_cfg=cfg.precision,
    )  # fmt: skip
    ls = g.precision.loss_scale
    for var in (ls.scale, ls.good_steps, ls.skipped):
        assert var.device == g.global_step.device
        saved, model = (map(id, d.values()) for d in (g.saved_variables, g.model_variables))
        assert id(var) in set(saved) and id(var) not in set(model)
    assert "/job:ps/" in g.global_step.device


def _saved(prefix):
    reader = tf.train.load_checkpoint(str(prefix))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


@pytest.fixture(scope="module")
def fp16_runs(tmp_path_factory):
    """path -> (its directory, its cases.json) from tests/precision_worker.py
    resume: each path in a process of its own with op determinism (TF2 also
    continues TF1's run)."""
    out = {}
    for path in ("tf1", "tf2"):
        where = tmp_path_factory.mktemp(path)
        arg = f"{where},{out['tf1'][0]}" if path == "tf2" else str(where)
        done = run_cli(["resume", path, "fp16", arg], 180, module="tests.precision_worker")
        assert done.returncode == 0, done.stderr[-3000:]
        out[path] = (where, json.loads((where / "cases.json").read_text()))
    return out


@pytest.mark.parametrize("path", ["tf1", "tf2"])
def test_an_interrupted_fp16_run_resumes_bit_identical_with_its_loss_scale(fp16_runs, path):
    """The scale has come down from 2^15 before the interruption, and the
    resumed run goes on from there, not from 2^15."""
    where, _ = fp16_runs[path]
    at, end = worker.RESUME_AT, worker.RESUME_END
    cut = _saved(where / "cut" / f"model.ckpt-{at}")
    assert cut["loss_scale/scale"] < precision.INITIAL_SCALE  # it moved before the cut
    assert cut["loss_scale/skipped_steps"] >= 1
    whole = _saved(where / "whole" / f"model.ckpt-{end}")
    resumed = _saved(where / "cut" / f"model.ckpt-{end}")
    assert sorted(whole) == sorted(resumed) and "loss_scale/good_steps" in whole
    for name in whole:  # weights, slots, step, scale, good and skipped steps
        np.testing.assert_array_equal(resumed[name], whole[name], err_msg=name)


@pytest.mark.parametrize("path", ["tf1", "tf2"])
def test_a_checkpoint_without_a_loss_scale_starts_fp16_at_the_initial_scale(fp16_runs, path):
    where, cases = fp16_runs[path]
    case = cases["no_scale"]  # fp32 to step 2, then fp16 to 4
    prefix = where / "no_scale" / "model.ckpt-2"
    assert not [n for n in _saved(prefix) if n.startswith("loss_scale/")]
    assert case["lines"][0] == []
    (line,) = case["lines"][1]
    assert f"checkpoint {prefix} has no loss_scale/good_steps, loss_scale/scale" in line
    assert line.endswith(f"the scale starts at {precision.INITIAL_SCALE:g}")
    fp16 = case["summaries"][1]
    assert fp16["global_step"] == 4 and fp16["skipped_steps"] == 0
    saved = _saved(where / "no_scale" / "model.ckpt-4")
    assert saved["loss_scale/scale"] == fp16["loss_scale"]
    assert saved["loss_scale/good_steps"] == 2  # counted from 0 at step 2


@pytest.mark.parametrize("path", ["tf1", "tf2"])
def test_an_fp16_checkpoint_restores_into_fp32_and_bf16_runs(fp16_runs, path):
    where, cases = fp16_runs[path]
    case = cases["into_fp32_bf16"]  # fp16 (every step skipped), fp32, bf16
    assert [s["global_step"] for s in case["summaries"]] == [2, 4, 6]
    assert [s.get("skipped_steps") for s in case["summaries"]] == [2, None, None]
    assert case["lines"] == [[], [], []]  # nothing an fp32/bf16 run uses is lost
    assert "loss_scale/scale" not in _saved(where / "into" / "model.ckpt-4")


@pytest.mark.parametrize("path", ["tf1", "tf2"])
def test_a_fixed_loss_scale_wins_over_the_checkpoints_in_one_line(fp16_runs, path):
    _, cases = fp16_runs[path]
    case = cases["fixed"]  # --loss_scale=1e30 to step 2 (both skipped), then 128
    assert case["lines"] == [
        [], ["--loss_scale=128: the fixed scale is used, not the checkpoint's loss scale 1e+30"]
    ]  # fmt: skip
    later = case["summaries"][1]
    assert later["loss_scale"] == 128 and later["skipped_steps"] == 2  # counted over restarts


@pytest.mark.parametrize("first, second", [("tf1", "tf2"), ("tf2", "tf1")])
def test_an_fp16_run_continues_the_other_paths_loss_scale(fp16_runs, tmp_path, first, second):
    """The other path resumes the interrupted run at its cut and ends with the
    loss scale the first path's uninterrupted run ended with."""
    where = fp16_runs[first][0]
    if second == "tf2":
        continued = fp16_runs["tf2"][1]["continued"]
        train_dir = fp16_runs["tf2"][0] / "continued"
    else:  # TF1 in this process
        train_dir = tmp_path / "continued"
        continued = worker.continue_other("tf1", str(where), str(train_dir))
    assert continued["lines"] == [[]]
    assert continued["summaries"][0]["global_step"] == worker.RESUME_END
    end = f"model.ckpt-{worker.RESUME_END}"
    want, got = _saved(where / "whole" / end), _saved(train_dir / end)
    for name in ("loss_scale/scale", "loss_scale/good_steps", "loss_scale/skipped_steps"):
        assert got[name] == want[name], name
