"""Helper processes for the checkpoint-migration and export tests.

    python tests/migration_worker.py tf1_train   DIR MODEL STEPS   checkpoint + test predictions
    python tests/migration_worker.py tf1_export  DIR MODEL         SavedModel from DIR's checkpoint
    python tests/migration_worker.py tf2_restore DIR MODEL         TF1 checkpoint -> TF2 predictions
    python tests/migration_worker.py tf2_saved   DIR               SavedModel -> TF2 predictions

Each call is a fresh process, as a user's would be: the TF1 ones never share
one with TF2 code.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.conftest import small_config  # noqa: E402


def _test_images():
    from tf1_train import data

    source = data.load_source(small_config("unused").data)
    return source, (source.test_images / source.scale).astype(np.float32)


def tf1_train(out_dir, model, steps):
    """Trains in a TF1 graph, saves a checkpoint, records test logits."""
    import tensorflow as tf

    from tf1_train import data, devices, graph, models

    v1 = tf.compat.v1
    cfg = small_config(out_dir, model=model, towers=2, steps=int(steps), optimizer="momentum")
    cfg_opt = cfg.optimizer
    plan = devices.plan_devices(cfg.devices, 0)
    source, images = _test_images()
    g = graph.build(cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg_opt, plan, 1)
    with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as sess:
        sess.run([g.init_op, g.input_init])
        for _ in range(cfg.run.train_steps):
            sess.run(g.train_op)
        g.saver.save(sess, os.path.join(out_dir, "model.ckpt"), global_step=g.global_step)
    with tf.Graph().as_default():
        x = tf.constant(images)
        logits = models.get_model(model)(x, False, source.num_classes)
        with v1.Session() as sess:
            v1.train.Saver().restore(sess, tf.train.latest_checkpoint(out_dir))
            np.save(os.path.join(out_dir, "tf1_logits.npy"), sess.run(logits))


def tf1_export(out_dir, model):
    import tensorflow as tf

    from tf1_train import export

    source, _ = _test_images()
    export.export_saved_model(
        tf.train.latest_checkpoint(out_dir),
        model,
        source.image_shape,
        source.num_classes,
        os.path.join(out_dir, "saved_model"),
    )


def tf2_restore(out_dir, model):
    from tf1_train.tf2 import checkpoint, models

    source, images = _test_images()
    net = models.build(model, source.image_shape, source.num_classes)
    checkpoint.load_into(checkpoint.latest(out_dir), net.by_name)
    np.save(os.path.join(out_dir, "tf2_logits.npy"), net(images, training=False).numpy())


def tf2_saved(out_dir):
    import tensorflow as tf

    _, images = _test_images()
    loaded = tf.saved_model.load(os.path.join(out_dir, "saved_model"))
    out = loaded.signatures["serving_default"](images=tf.constant(images))
    np.save(os.path.join(out_dir, "saved_logits.npy"), out["logits"].numpy())


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    {
        "tf1_train": tf1_train,
        "tf1_export": tf1_export,
        "tf2_restore": tf2_restore,
        "tf2_saved": tf2_saved,
    }[sys.argv[1]](*sys.argv[2:])
    from tf1_train import env

    env.freeze_imports()  # as the entry points: the exit's collections skip it all
