"""One side of the TF1 <-> TF2 mixed-precision comparison, in its own process.

    python tests/precision_worker.py tf1 MODELS PRECISION DIR  # DIR/<model>/tf1.json + checkpoint
    python tests/precision_worker.py tf2 MODELS PRECISION DIR  # from it: DIR/<model>/tf2.json
    python tests/precision_worker.py overflow MODEL fp16 DIR  # TF2 loss scale: DIR/overflow.json

Both sides train the same small run (2 towers / replicas, momentum) from the
same initial weights (the TF1 side's step-0 checkpoint, read by name) on the
same batches (the shared input pipeline), and write their per-step losses.
The sides never share a process: the TF1 side builds a Session graph.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.conftest import small_config  # noqa: E402
from tf1_train import config as cfglib  # noqa: E402

STEPS = 20


def config(model: str, precision: str, train_dir: str) -> cfglib.Config:
    cfg = small_config(
        train_dir, model=model, towers=2, batch=16, steps=STEPS, optimizer="momentum",
        learning_rate=0.01, variable_update="replicated",
    )  # fmt: skip
    return dataclasses.replace(cfg, precision=cfglib.PrecisionConfig(precision))


def run_tf1(cfg: cfglib.Config) -> list:
    import tensorflow as tf

    from tf1_train import data, devices, graph

    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan,
        cfg.run.seed, precision_cfg=cfg.precision,
    )  # fmt: skip
    config = devices.session_config(cfg.devices, plan)
    with tf.compat.v1.Session(graph=g.graph, config=config) as sess:
        sess.run(g.init_op)
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        g.saver.save(sess, os.path.join(cfg.run.train_dir, "model.ckpt"), global_step=0)
        return [float(sess.run([g.train_op, g.loss])[1]) for _ in range(STEPS)]


def run_tf2(cfg: cfglib.Config) -> list:
    from tf1_train import data
    from tf1_train.tf2 import checkpoint, train

    source = data.load_source(cfg.data)
    trainer = train.build(cfg, source, gpus_found=0)
    assert checkpoint.restore_latest(cfg.run.train_dir, trainer.state_by_name()) == 0
    losses, _ = train.train_loop(trainer, cfg, source, 0)
    return losses


def overflow(cfg: cfglib.Config) -> dict:
    """fp16 in the TF2 twin: one step whose gradients overflow, then one that does not."""
    import numpy as np
    import tensorflow as tf

    from tf1_train import data
    from tf1_train.tf2 import train

    source = data.load_source(cfg.data)
    trainer = train.build(cfg, source, gpus_found=0)
    ls, w = trainer.loss_scale, trainer.model.by_name["conv1/weights"]
    images = tf.constant(source.train_images[:32])
    labels = tf.constant(source.train_labels[:32].astype(np.int32))

    def copies():
        return [v.numpy() for v in trainer.strategy.experimental_local_results(w)]

    before = copies()
    ls.scale.assign(3e38)  # loss * 3e38 overflows float16's gradients
    trainer.steps.train(images, labels)
    after = copies()
    out = {
        "copies": len(before),
        "unchanged_after_overflow": [bool(np.array_equal(a, b)) for a, b in zip(after, before)],
        "scale": ls.values()["loss_scale"],
        "skipped": ls.values()["skipped_steps"],
        "step": int(trainer.optimizer.step.numpy()),
    }
    ls.scale.assign(1024.0)
    trainer.steps.train(images, labels)
    later = copies()
    out["changed_after"] = not np.array_equal(later[0], after[0])
    out["copies_equal_after"] = bool(np.array_equal(later[0], later[1]))
    out["skipped_after"] = ls.values()["skipped_steps"]
    return out


def main(side: str, models: str, precision: str, out: str) -> None:
    """``models``: comma-separated; each writes ``out/<model>/<side>.json``."""
    if side == "overflow":
        result = overflow(config(models, precision, out))
        with open(os.path.join(out, "overflow.json"), "w") as f:
            json.dump(result, f)
        return
    if side == "tf1":
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
    for model in models.split(","):
        model_dir = os.path.join(out, model)
        os.makedirs(model_dir, exist_ok=True)
        losses = (run_tf1 if side == "tf1" else run_tf2)(config(model, precision, model_dir))
        with open(os.path.join(model_dir, f"{side}.json"), "w") as f:
            json.dump(losses, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
