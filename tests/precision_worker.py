"""One side of the TF1 <-> TF2 mixed-precision comparison, in its own process.

    python tests/precision_worker.py tf1 MODELS PRECISION DIR  # DIR/<model>/tf1.json + checkpoint
    python tests/precision_worker.py tf2 MODELS PRECISION DIR  # from it: DIR/<model>/tf2.json
    python tests/precision_worker.py overflow MODEL fp16 DIR  # TF2 loss scale: DIR/overflow.json
    python tests/precision_worker.py resume tf1|tf2 fp16 DIR[,OTHER]  # fp16 resume, restores

Both sides train the same small run (2 towers / replicas, momentum) from the
same initial weights (the TF1 side's step-0 checkpoint, read by name) on the
same batches (the shared input pipeline), and write their per-step losses.
The sides never share a process: the TF1 side builds a Session graph.
``resume`` runs one path's fp16 runs (interrupted or not, then restores
across precisions) with op determinism on, which is process-wide.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
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


# fp16 runs whose dynamic scale moves before RESUME_AT (measured: mlp at this
# learning rate first overflows at 2^15 around step 10 on both paths).
RESUME_AT, RESUME_END = 14, 20


def resume_config(train_dir: str, steps: int, precision: str = "fp16", **kw) -> cfglib.Config:
    return small_config(
        train_dir, model="mlp", steps=steps, optimizer="momentum", learning_rate=1.0,
        deterministic=True, precision=precision, **kw,
    )  # fmt: skip


def _runner(path: str):
    if path == "tf1":
        from tf1_train import train
    else:
        from tf1_train.tf2 import train
    return train.run


def _runs(run, train_dir: str, *steps_and_flags) -> dict:
    """Runs in one train_dir, one after the other: each one's run_summary and
    the lines it printed about the loss scale."""
    out = {"summaries": [], "lines": []}
    for steps, precision, loss_scale in steps_and_flags:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            cfg = resume_config(train_dir, steps, precision, loss_scale=loss_scale)
            out["summaries"].append(run(cfg, gpus_found=0).summary)
        out["lines"].append(
            [x for x in printed.getvalue().splitlines() if x.startswith(("loss scale", "--loss"))]
        )
    return out


def resume(path: str, out: str, other: str = "") -> None:
    """``path``'s fp16 run to RESUME_END in ``out/whole``; in ``out/cut`` the
    same run stopped at RESUME_AT and resumed (one process: op determinism
    on). Then the restores across precisions (``out/cases.json``) and, given
    the ``other`` path's ``out``, its fp16 run continued from its cut."""
    run = _runner(path)
    run(resume_config(os.path.join(out, "whole"), RESUME_END), gpus_found=0)
    for steps in (RESUME_AT, RESUME_END):
        run(resume_config(os.path.join(out, "cut"), steps), gpus_found=0)
    cases = {
        "no_scale": _runs(run, os.path.join(out, "no_scale"), (2, "fp32", ""), (4, "fp16", "")),
        "into_fp32_bf16": _runs(
            run, os.path.join(out, "into"), (2, "fp16", "1e30"), (4, "fp32", ""), (6, "bf16", "")
        ),
        "fixed": _runs(run, os.path.join(out, "fixed"), (2, "fp16", "1e30"), (3, "fp16", "128")),
    }
    if other:
        cases["continued"] = continue_other(path, other, os.path.join(out, "continued"))
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f)


def continue_other(path: str, other: str, train_dir: str) -> dict:
    """``path`` resumes the other path's fp16 run at RESUME_AT, to RESUME_END."""
    os.makedirs(train_dir)
    for name in os.listdir(os.path.join(other, "cut")):
        if name.startswith(f"model.ckpt-{RESUME_AT}."):
            shutil.copy(os.path.join(other, "cut", name), train_dir)
    return _runs(_runner(path), train_dir, (RESUME_END, "fp16", ""))


def main(side: str, models: str, precision: str, out: str) -> None:
    """``models``: comma-separated; each writes ``out/<model>/<side>.json``."""
    if side == "resume":
        resume(models, *out.split(","))
        return
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


def cli(argv) -> None:
    """``python tests/precision_worker.py ARGS``, or a child forked from the
    tests' warm server (tests/warm_cli.py: ``run_cli(ARGS,
    module="tests.precision_worker")``): it has imported TensorFlow, and no
    session, eager context or device list exists before this runs."""
    main(*argv)
    from tf1_train import env

    env.freeze_imports()  # as the entry points: the exit's collections skip it all


if __name__ == "__main__":
    cli(sys.argv[1:])
