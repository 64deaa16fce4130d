"""The sides of a port check, each run in its own process.

    python -m tf1_train.port.sides tf1 cases.json out_dir
    python -m tf1_train.port.sides tf2 cases.json out_dir     (reads tf1's files)
    python -m tf1_train.port.sides keras cases.json out_dir   (Keras Model.fit)

The TF1 side trains each case in its own tf.Graph, on tf1_train's towers, and
saves per case (``<out_dir>/<id>_tf1.npz``): the initial weights (by TF1
name), the exact batches the steps consumed, the per-step losses, the
variables after every step (``record: all``) or at the end, the moving
averages of the weights, and, when the TF2 side is an object of the user's,
one forward and backward pass on the first batch (logits, loss, every
gradient) with what the hints read of the graph. The TF2 side starts from those weights,
feeds those batches and saves the same keys. The two never share a process:
a TF1 graph and a TF2 program in one process interfere (PORTING.md P15), and
Keras numbers its layers by what else the process built.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Dict, List

import numpy as np

from tf1_train import saved_scale
from tf1_train.port import spec

AVERAGE = "/ExponentialMovingAverage"  # a weight average's name: <var>/ExponentialMovingAverage


def load_source(case: Dict, cfg):
    """The case's data: a built-in dataset, or synthetic examples streamed
    through the real input pipeline (of ``input_shape`` if given)."""
    from tf1_train import data
    from tf1_train.data import synthetic

    if not case["synthetic"] and not case["input_shape"]:
        return data.load_source(cfg.data)
    shape = synthetic.SPECS[case["dataset"]]
    if case["input_shape"]:
        shape = synthetic.Spec(tuple(case["input_shape"]), case["num_classes"] or 10, 10000)
    return synthetic.source(case["dataset"], cfg.data.seed, shape)


def run_tf1(case: Dict, out: str) -> None:
    import tensorflow as tf

    from tf1_train import devices, graph
    from tf1_train.data import user_input

    v1 = tf.compat.v1
    cfg = spec.config(case, out + "_tf1")
    source = load_source(case, cfg)
    pre = user_input.load(cfg.data.preprocess, source.image_shape, cfg.data.seed)
    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(
        cfg.model, source, spec.streamed(cfg.data), cfg.devices, cfg.optimizer, plan, cfg.run.seed,
        loss=cfg.loss, preprocess=pre, precision_cfg=cfg.precision,
    )  # fmt: skip
    record: Dict[str, np.ndarray] = {}
    scale = {k: g.saved_variables[k] for k in SCALE_STATE if k in g.saved_variables}
    with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as sess:
        sess.run([g.init_op, g.input_init])
        sess.run(g.post_init_ops)
        initial = sess.run(g.model_variables)
        losses, scales = [], []
        for step in range(1, case["steps"] + 1):
            losses.append(float(sess.run([g.train_op, g.loss])[1]))
            scales.append(sess.run(scale))
            if case["record"] == "all":
                values = sess.run(g.model_variables)
                record.update({f"step{step}:{k}": v for k, v in values.items()})
        final = sess.run(g.model_variables)
        averages = sess.run({k: v for k, v in g.saved_variables.items() if k.endswith(AVERAGE)})
        slots = sess.run(optimizer_state(g.saved_variables, g.model_variables))
    images, labels = _batches(source, cfg, pre, case["steps"])
    scale = 0.0 if pre else float(source.scale)
    forward = {}
    if is_users_object(case):  # the only side with a forward pass to compare it with
        forward = _forward_tf1(cfg, source.num_classes, initial, images[0], labels[0], scale)
    np.savez(
        out + "_tf1.npz",
        losses=np.array(losses),
        images=images,
        labels=labels,
        scale=np.float32(scale),
        num_classes=np.int32(source.num_classes),
        **{"init:" + k: v for k, v in initial.items()},
        **{"final:" + k: v for k, v in final.items()},
        **record,
        **{"average:" + k: v for k, v in averages.items()},
        **{"slot:" + k: v for k, v in slots.items()},
        **forward,
        **scale_record(scales),
    )  # fmt: skip


def optimizer_state(saved: Dict, model: Dict) -> Dict:
    """The optimizer's slots and non-slot state (``<var>/Momentum``,
    ``beta1_power``) among a checkpoint's variables."""
    other = (AVERAGE, "global_step", saved_scale.SCOPE + "/")
    return {k: v for k, v in saved.items() if k not in model and not k.startswith(other)
            and not k.endswith(AVERAGE)}  # fmt: skip


SCALE_STATE = (saved_scale.SCALE, saved_scale.SKIPPED)


def scale_record(scales: List[Dict]) -> Dict[str, np.ndarray]:
    """fp16's loss scale and skipped steps after each step, as the compare
    reads them (``{}`` without a loss scale)."""
    if not scales or not scales[0]:
        return {}
    return {f"scale:{k}": np.array([s[k] for s in scales], np.float64) for k in SCALE_STATE}


def _batches(source, cfg, pre, steps: int):
    """The global batches the TF1 graph's input pipeline gave its first steps."""
    import tensorflow as tf

    from tf1_train import data
    from tf1_train.data import pipeline

    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.set_random_seed(cfg.run.seed)  # as graph.build does
        gb = cfg.data.batch_size * cfg.devices.num_towers
        augment = data.augments(spec.streamed(cfg.data))  # as graph.build's input
        ds = pipeline.train_dataset(source, gb, cfg.data.seed, augment=augment, preprocess=pre)
        batch = v1.data.make_initializable_iterator(ds)
        nxt = batch.get_next()
        with v1.Session() as sess:
            sess.run(batch.initializer)
            found = [sess.run(nxt) for _ in range(steps)]
    return np.stack([b[0] for b in found]), np.stack([b[1] for b in found])


def _forward_tf1(cfg, num_classes: int, initial: Dict, images, labels, scale: float) -> Dict:
    """Logits, loss (data and the model's own terms) and every gradient of
    the TF1 model on the first global batch, at the initial weights."""
    import tensorflow as tf

    from tf1_train import models, towers
    from tf1_train import precision as precisionlib
    from tf1_train.models import calls, outputs

    v1 = tf.compat.v1
    p = precisionlib.Precision(cfg.precision.precision)
    with tf.Graph().as_default():
        v1.set_random_seed(cfg.run.seed)
        x = tf.constant(images)
        x = tf.cast(x, tf.float32) * (1.0 / scale) if scale else x
        model_fn = models.checked(models.get_model(cfg.model), cfg.model)
        with precisionlib.tower_scope(p):  # the towers' cast getter (--precision)
            x_in, y = precisionlib.to_compute(x, p), tf.constant(labels)
            out = calls.call_model(model_fn, x_in, True, num_classes, y)
        loss_fn = models.resolve(cfg.loss, "loss") if cfg.loss else None
        logits, end_points = outputs.split(out, loss_fn, f"--model={cfg.model}")
        logits, end_points = precisionlib.to_float32(logits), outputs.float32_end_points(end_points)
        before = len(v1.get_collection(v1.GraphKeys.LOSSES))
        data = towers.data_loss(y, logits, loss_fn, end_points)
        own = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        own += towers.collected_terms(data, before, "", loss_fn)[0]  # the towers' rule
        own_sum = tf.add_n([tf.cast(t, tf.float32) for t in own]) if own else tf.constant(0.0)
        params = v1.trainable_variables()
        factor = first_scale(cfg.precision)  # fp16: the gradients training takes, unscaled
        grads = [g / factor for g in v1.gradients((data + own_sum) * factor, params)]
        with v1.Session() as sess:
            _load(sess, initial)
            out = sess.run({"logits": logits, "data": data, "own": own_sum, "grads": grads})
        facts = graph_facts(tf.compat.v1.get_default_graph())
    found = {f"grad:{p.op.name}": g for p, g in zip(params, out["grads"]) if g is not None}
    return {
        "fwd:logits": out["logits"],
        "fwd:data_loss": out["data"],
        "fwd:own_losses": out["own"],
        **facts,
        **found,
    }


def first_scale(pc) -> float:
    """The loss scale of an fp16 run's first step (1 without loss scaling)."""
    from tf1_train import precision as precisionlib

    value = precisionlib.loss_scale_value(pc.precision, pc.loss_scale)
    if value is None:
        return 1.0
    return precisionlib.INITIAL_SCALE if value == "dynamic" else float(value)


def _load(sess, values: Dict[str, np.ndarray]) -> None:
    """The graph's variables named in ``values`` loaded with them."""
    import tensorflow as tf

    from tf1_train.warm_start import load_in_one_run

    found = [v for v in tf.compat.v1.global_variables() if v.op.name in values]
    load_in_one_run(sess, {v: values[v.op.name] for v in found})


def graph_facts(graph) -> Dict[str, np.ndarray]:
    """What the hints compare with the TF2 side (port/hints.py): the epsilons
    of the fused batch-norm ops, how many dropout layers draw masks (random
    ops inside a ``dropout`` name scope), and how many ``dynamic_rnn`` calls
    took a ``sequence_length`` (their ``CheckSeqLen`` assertion), which
    zero-fills the outputs past each length."""
    eps, dropout, lengths = set(), set(), 0
    for op in graph.get_operations():
        if op.type.startswith("FusedBatchNorm") and "Grad" not in op.type:
            eps.add(float(f"{op.get_attr('epsilon'):.7g}"))  # a float32 attribute
        parts = op.name.split("/")
        lengths += parts[-1] == "CheckSeqLen"
        if "Random" in op.type:
            scopes = [i for i, part in enumerate(parts) if part.startswith("dropout")]
            if scopes:
                dropout.add("/".join(parts[: scopes[-1] + 1]))
    return {
        "fwd:bn_epsilon": np.array(sorted(eps), np.float64),
        "fwd:dropout_layers": np.int32(len(dropout)),
        "fwd:rnn_sequence_lengths": np.int32(lengths),
    }


def is_users_object(case: Dict) -> bool:
    """The TF2 side is an object of the user's (port/user_side.py), which
    records a forward pass on the first batch; tf1_train's own twin and the
    Keras fit route record the steps only, so the TF1 side skips its forward
    graph for them (the ResNets' dearest part after the training graph)."""
    return bool(case["tf2"] and ":" in case["tf2"] or case["tf2_optimizer"] == "keras")


def run_tf2(case: Dict, out: str) -> None:
    """A TF2 object of the user's (port/user_side.py), or tf1_train's own twin."""
    if is_users_object(case):
        from tf1_train.port import user_side

        user_side.run(case, out)
    else:
        _run_twin(case, out)


def _run_twin(case: Dict, out: str) -> None:
    """tf1_train's TF2 path (tf1_train/tf2/train.py) on the recorded batches."""
    import tensorflow as tf

    from tf1_train.tf2 import train as tf2_train

    cfg = spec.config({**case, "model": case["tf2"] or case["model"]}, out + "_tf2")
    ref = np.load(out + "_tf1.npz")
    trainer = tf2_train.build(cfg, load_source(case, cfg), gpus_found=0)
    for name, var in trainer.model.by_name.items():
        var.assign(ref["init:" + name])
    averages = trainer.averages.by_name if trainer.averages else {}
    for name, avg in averages.items():  # they start at the initial weights, as in TF1
        avg.assign(ref["init:" + name[: -len(AVERAGE)]])
    losses, record, scales = [], {}, []
    for step, (x, y) in enumerate(zip(ref["images"], ref["labels"]), 1):
        losses.append(float(trainer.steps.train(tf.constant(x), tf.constant(y))))
        if trainer.loss_scale is not None:
            state = trainer.loss_scale.by_name()
            scales.append({k: float(state[k].numpy()) for k in SCALE_STATE})
        if case["record"] == "all":
            record.update({f"step{step}:{n}": v.numpy() for n, v in trainer.model.by_name.items()})
    final = {"final:" + n: v.numpy() for n, v in trainer.model.by_name.items()}
    final.update({"average:" + n: v.numpy() for n, v in averages.items()})
    np.savez(out + "_tf2.npz", losses=np.array(losses), **final, **record, **scale_record(scales))


def run_keras(case: Dict, out: str) -> None:
    """tf1_train's Keras ``Model.fit`` route on the recorded batches."""
    import tensorflow as tf

    from tf1_train.tf2 import keras_fit, keras_slots
    from tf1_train.tf2.strategy import make_strategy

    cfg = spec.config(case, out + "_keras")
    source = load_source(case, cfg)
    ref = np.load(out + "_tf1.npz")
    strategy, _ = make_strategy(cfg.devices, gpus_found=0)
    with strategy.scope():
        model = keras_fit.build_model(
            cfg.model, source.image_shape, source.num_classes, source.scale
        )
        keras_fit.compile_model(model, cfg.optimizer, strategy.num_replicas_in_sync)
    by_name = keras_fit.variables_by_tf1_name(model)
    for name, var in by_name.items():
        var.assign(ref["init:" + name])
    batches = tf.data.Dataset.from_tensor_slices((ref["images"], ref["labels"]))
    losses = keras_fit.fit(model, batches, len(ref["labels"]))
    final = {"final:" + n: np.asarray(v.numpy()) for n, v in by_name.items()}
    slots = keras_slots.v1_state(model.optimizer, by_name, cfg.optimizer)
    final.update({"slot:" + n: np.asarray(v) for n, v in slots.items()})
    np.savez(out + "_keras.npz", losses=np.array(losses), **final)


SIDES = {"tf1": run_tf1, "tf2": run_tf2, "keras": run_keras}


def main(argv: List[str]) -> int:
    """Runs one side of every case in the file; a user error is one line, exit 2."""
    from tf1_train.errors import UserError

    try:
        return _run_side(*argv)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _run_side(side: str, cases_file: str, out_dir: str) -> int:
    with open(cases_file) as f:
        cases = [spec.complete(c) for c in json.load(f)]
    import tensorflow  # noqa: F401  (each side's, loaded before the first case)

    from tf1_train import env

    env.freeze_imports()
    if side == "tf1" and any(c["v1"] for c in cases):  # before the user's code is imported
        from tf1_train.compat.__main__ import enter_v1

        enter_v1(os.getcwd())
    if side != "tf1":
        from tf1_train.tf2.strategy import ensure_logical_cpus

        ensure_logical_cpus(max(c["towers"] for c in cases))
    for case in cases:
        if side != "tf1" and (side == "keras") != bool(case.get("keras")):
            continue  # tf1 runs every case; tf2 the custom-loop ones, keras its own
        SIDES[side](case, os.path.join(out_dir, case["id"]))
        print("done", case["id"], flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.exit(main(sys.argv[1:]))
