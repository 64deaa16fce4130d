"""One side of the TF1 <-> TF2 equivalence tests, run in its own process.

    python tests/equiv_worker.py tf1 cases.json out_dir
    python tests/equiv_worker.py tf2 cases.json out_dir     (reads tf1's npz files)
    python tests/equiv_worker.py keras cases.json out_dir   (Keras Model.fit)

The TF1 side trains each case in its own tf.Graph and saves, per case: the
initial weights (by TF1 name), the exact batches the steps consumed, the
per-step losses and the final weights and moving statistics. The TF2 side
starts from those weights, feeds those batches, and saves its own losses and
final weights. The test compares the two files. The sides never share a
process (PORTING.md P15).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.conftest import small_config  # noqa: E402

AVERAGE = "/ExponentialMovingAverage"  # a weight average's name: <var>/ExponentialMovingAverage


def case_config(case, train_dir):
    return small_config(
        train_dir,
        model=case["model"],
        towers=case["towers"],
        batch=case["batch"],
        steps=case["steps"],
        optimizer=case["optimizer"],
        learning_rate=case["lr"],
        weight_decay=case.get("weight_decay", 0.0),
        dataset=case.get("dataset", "digits"),
        **case.get("rules", {}),  # the legacy training rules' fields
    )


def run_tf1(case, out):
    import tensorflow as tf

    from tf1_train import data, devices, graph
    from tf1_train.data import pipeline

    v1 = tf.compat.v1
    cfg = case_config(case, out + "_tf1")
    source = data.load_source(cfg.data)
    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(cfg.model, source, cfg.data, cfg.devices, cfg.optimizer, plan, cfg.run.seed)
    with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as sess:
        sess.run([g.init_op, g.input_init])
        sess.run(g.post_init_ops)
        initial = sess.run(g.model_variables)
        losses = [float(sess.run([g.train_op, g.loss])[1]) for _ in range(case["steps"])]
        final = sess.run(g.model_variables)
        averages = sess.run({k: v for k, v in g.saved_variables.items() if k.endswith(AVERAGE)})
    with tf.Graph().as_default():
        v1.set_random_seed(cfg.run.seed)  # as graph.build does
        gb = cfg.data.batch_size * cfg.devices.num_towers
        it = v1.data.make_initializable_iterator(pipeline.train_dataset(source, gb, cfg.data.seed))
        batch = it.get_next()
        with v1.Session() as sess:
            sess.run(it.initializer)
            batches = [sess.run(batch) for _ in range(case["steps"])]
    np.savez(
        out + "_tf1.npz",
        losses=np.array(losses),
        images=np.stack([b[0] for b in batches]),
        labels=np.stack([b[1] for b in batches]),
        **{"init:" + k: v for k, v in initial.items()},
        **{"final:" + k: v for k, v in final.items()},
        **{"average:" + k: v for k, v in averages.items()},
    )


def run_tf2(case, out):
    import tensorflow as tf

    from tf1_train import data
    from tf1_train.tf2 import train as tf2_train

    cfg = case_config(case, out + "_tf2")
    ref = np.load(out + "_tf1.npz")
    trainer = tf2_train.build(cfg, data.load_source(cfg.data), gpus_found=0)
    for name, var in trainer.model.by_name.items():
        var.assign(ref["init:" + name])
    averages = trainer.averages.by_name if trainer.averages else {}
    for name, avg in averages.items():  # they start at the initial weights, as in TF1
        avg.assign(ref["init:" + name[: -len(AVERAGE)]])
    losses = [
        float(trainer.steps.train(tf.constant(x), tf.constant(y)))
        for x, y in zip(ref["images"], ref["labels"])
    ]
    final = {"final:" + n: v.numpy() for n, v in trainer.model.by_name.items()}
    final.update({"average:" + n: v.numpy() for n, v in averages.items()})
    np.savez(out + "_tf2.npz", losses=np.array(losses), **final)


def run_keras(case, out):
    import tensorflow as tf

    from tf1_train import data
    from tf1_train.tf2 import keras_fit
    from tf1_train.tf2.strategy import make_strategy

    cfg = case_config(case, out + "_keras")
    source = data.load_source(cfg.data)
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
    np.savez(out + "_keras.npz", losses=np.array(losses), **final)


SIDES = {"tf1": run_tf1, "tf2": run_tf2, "keras": run_keras}


def main(side, cases_file, out_dir):
    with open(cases_file) as f:
        cases = json.load(f)
    if side != "tf1":
        from tf1_train.tf2.strategy import ensure_logical_cpus

        ensure_logical_cpus(max(c["towers"] for c in cases))
    for case in cases:
        if (side == "keras") != bool(case.get("keras")) and side != "tf1":
            continue  # tf1 runs every case; tf2 the custom-loop ones, keras its own
        SIDES[side](case, os.path.join(out_dir, case["id"]))
        print("done", case["id"], flush=True)


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    main(*sys.argv[1:])
