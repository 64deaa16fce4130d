"""Legacy TF1 loops that fetch what the train op of the same run updates,
as hunkim's DeepLearningZeroToAll does (lab-02: ``sess.run([train, cost, W,
b])`` after ``train = optimizer.minimize(cost)``; lab-03: ``sess.run(
[gradient, gvs, apply_gradients])``) and as NVIDIA OpenSeq2Seq's hooks do
(``before_run`` returning ``SessionRunArgs(tf.train.get_global_step())``
while the session runs the train op). On TF 1.x the reference variables
were read when the run ended: the values after the update. Not changed for
TensorFlow 2: tests run it through ``python -m tf1_train.compat --v1``, with
and without ``--v1_variables``.

Prints ``weights`` (W and b as the minimize loop fetched them), ``pairs``
(the variable of the gradient-variable pair the lab-03 loop fetched) and
``hook_steps`` (the global step the hook fetched), three steps each.
"""

import tensorflow as tf


def lab_02():
    W = tf.Variable([1.0], name="W")
    b = tf.Variable([0.0], name="b")
    x = tf.constant([1.0, 2.0, 3.0])
    cost = tf.reduce_mean(tf.square(W * x + b - 2 * x))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
    seen = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            _, c, w, bb = sess.run([train, cost, W, b])
            seen.append(f"{w[0]:.4f}/{bb[0]:.4f}")
    print("weights = " + " ".join(seen))


def lab_03():
    W = tf.Variable(5.0)
    cost = tf.reduce_mean(tf.square(W * tf.constant([1.0, 2.0]) - tf.constant([1.0, 2.0])))
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.01)
    gvs = optimizer.compute_gradients(cost, [W])
    apply_gradients = optimizer.apply_gradients(gvs)
    seen = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            gvs_val, _ = sess.run([gvs, apply_gradients])
            seen.append(f"{gvs_val[0][1]:.4f}")
    print("pairs = " + " ".join(seen))


class StepHook(tf.train.SessionRunHook):
    def __init__(self, seen):
        self.seen = seen

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(tf.train.get_global_step())

    def after_run(self, run_context, run_values):
        self.seen.append(str(run_values.results))


def hooked():
    x = tf.Variable(1.0)
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(x * x, global_step=step)
    seen = []
    with tf.train.MonitoredTrainingSession(hooks=[StepHook(seen)]) as sess:
        for _ in range(3):
            sess.run(train)
    print("hook_steps = " + " ".join(seen))


if __name__ == "__main__":
    for build in (lab_02, lab_03, hooked):
        with tf.Graph().as_default():
            build()
