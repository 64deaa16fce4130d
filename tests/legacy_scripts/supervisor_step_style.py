# ruff: noqa
"""A TF 1.x training script in the manner of Kyubyong's Tacotron (train.py):
the step counter made by hand as tf.Variable(0, name='global_step'), passed
to minimize, then a tf.train.Supervisor that finds it by that name, writes
the merged summaries and saves checkpoints. Written for TF 1.x (``import
tensorflow as tf`` is the v1 API); run it with ``python -m tf1_train.compat
--v1 supervisor_step_style.py LOGDIR``. Ours, not Kyubyong's code.
"""

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.get_variable("w", [4, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
global_step = tf.Variable(0, name="global_step", trainable=False)
train_op = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=global_step)
tf.summary.scalar("train/loss", loss)
merged = tf.summary.merge_all()

rng = np.random.RandomState(0)
data_x = rng.randn(64, 4).astype(np.float32)
data_y = data_x.sum(axis=1, keepdims=True)
sv = tf.train.Supervisor(logdir=logdir, save_summaries_secs=0, save_model_secs=0)
print("supervisor step", sv.global_step.name if sv.global_step is not None else None)
with sv.managed_session() as sess:
    for _ in range(20):
        sess.run(train_op, {x: data_x, y: data_y})
        gs = sess.run(global_step)
        if gs % 5 == 0:
            sv.summary_computed(sess, sess.run(merged, {x: data_x, y: data_y}))
    sv.saver.save(sess, logdir + "/model.ckpt", global_step=sv.global_step)
print("done")
