"""A TF 1.x program that trains with Horovod as its README taught: ``hvd.init()``,
the learning rate scaled by ``hvd.size()``, ``hvd.DistributedOptimizer``
(``sparse_as_dense`` for an embedding's gradient), ``hvd.BroadcastGlobalVariablesHook(0)``
in a ``MonitoredTrainingSession``, checkpoints on rank 0 only, and an
``hvd.allreduce`` of a metric with ``Compression.fp16``. Not changed for
TensorFlow 2: tests run it through ``python -m tf1_train.compat --v1``, where
Horovod is not installed; ``--no_horovod`` runs the same model without it.

Prints ``step <i> loss <value>``, then ``metric <allreduced value>``.
"""

import argparse

import numpy as np
import tensorflow as tf


def model(ids, x, y):
    init = np.random.RandomState(0)
    emb = tf.get_variable("emb", initializer=init.normal(0, 0.1, (20, 4)).astype(np.float32))
    w = tf.get_variable("w", initializer=init.normal(0, 0.1, (8, 1)).astype(np.float32))
    features = tf.concat([tf.reduce_mean(tf.gather(emb, ids), 1), x], 1)
    return tf.reduce_mean(tf.square(tf.matmul(features, w) - y))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no_horovod", action="store_true")
    parser.add_argument("--checkpoint_dir", default=None)
    args = parser.parse_args()
    if not args.no_horovod:
        import horovod.tensorflow as hvd

        hvd.init()
    size, rank = (1, 0) if args.no_horovod else (hvd.size(), hvd.rank())
    data = np.random.RandomState(1)
    ids = tf.constant(data.randint(0, 20, (16, 3)))
    x = tf.constant(data.normal(size=(16, 4)).astype(np.float32))
    y = tf.constant(data.normal(size=(16, 1)).astype(np.float32))
    loss = model(ids, x, y)
    opt = tf.train.AdamOptimizer(0.01 * size)
    hooks = []
    if not args.no_horovod:
        opt = hvd.DistributedOptimizer(opt, sparse_as_dense=True)
        hooks.append(hvd.BroadcastGlobalVariablesHook(0))
    step = tf.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=step)
    metric = tf.constant([1.0001, 2.5])
    if not args.no_horovod:
        metric = hvd.allreduce(metric, compression=hvd.Compression.fp16)
    checkpoint_dir = args.checkpoint_dir if rank == 0 else None
    with tf.train.MonitoredTrainingSession(checkpoint_dir=checkpoint_dir, hooks=hooks) as sess:
        for i in range(5):
            value, _ = sess.run([loss, train])
            print(f"step {i} loss {value:.9f}")
        print("metric " + " ".join(f"{v:.6f}" for v in sess.run(metric)))


if __name__ == "__main__":
    main()
