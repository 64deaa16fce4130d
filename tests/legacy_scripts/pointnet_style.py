"""A point-cloud classifier written the way PointNet's TF 1.x code base was
(charlesq34/pointnet, 2017, and the many forks of its tf_util.py): variables
from get_variable helpers pinned to the CPU, 1xK convolutions over points, a
batch norm whose ExponentialMovingAverage is applied inside tf.cond on a
placeholder phase, a transform net whose biases start at the identity with
``biases += tf.constant(...)``, and `.value` on static shapes.

Run as a TF 1.x program: ``python -m tf1_train.compat --v1 --v1_shapes
--v1_variables pointnet_style.py``. Prints the training losses, the moving
averages and the evaluation logits as ``name = value`` lines. ``--fixed``
adds the identity to the transform biases as a new tensor, ``biases + ...``
(the scan's fix), which also runs on TF 2's resource variables.
"""

import sys

import numpy as np
import tensorflow as tf

FIXED = "--fixed" in sys.argv
BATCH, POINTS, CLASSES, STEPS = 8, 64, 3, 6


def _variable_on_cpu(name, shape, initializer):
    with tf.device("/cpu:0"):
        var = tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)
    return var


def _variable_with_weight_decay(name, shape, stddev, wd):
    var = _variable_on_cpu(name, shape, tf.truncated_normal_initializer(stddev=stddev, seed=1))
    if wd is not None:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss"))
    return var


def batch_norm(inputs, is_training, scope, moments_dims, bn_decay):
    with tf.variable_scope(scope):
        num_channels = inputs.get_shape()[-1].value
        beta = tf.Variable(tf.constant(0.0, shape=[num_channels]), name="beta")
        gamma = tf.Variable(tf.constant(1.0, shape=[num_channels]), name="gamma")
        batch_mean, batch_var = tf.nn.moments(inputs, moments_dims, name="moments")
        ema = tf.train.ExponentialMovingAverage(decay=bn_decay)
        ema_apply_op = tf.cond(
            is_training, lambda: ema.apply([batch_mean, batch_var]), lambda: tf.no_op()
        )

        def mean_var_with_update():
            with tf.control_dependencies([ema_apply_op]):
                return tf.identity(batch_mean), tf.identity(batch_var)

        mean, var = tf.cond(
            is_training,
            mean_var_with_update,
            lambda: (ema.average(batch_mean), ema.average(batch_var)),
        )
        return tf.nn.batch_normalization(inputs, mean, var, beta, gamma, 1e-3), ema


def conv2d(inputs, outputs, kernel, scope, is_training, emas):
    with tf.variable_scope(scope):
        channels = inputs.get_shape()[-1].value
        shape = [kernel[0], kernel[1], channels, outputs]
        kernel_var = _variable_with_weight_decay("weights", shape, 0.1, 0.0)
        net = tf.nn.conv2d(inputs, kernel_var, [1, 1, 1, 1], padding="VALID")
        biases = _variable_on_cpu("biases", [outputs], tf.constant_initializer(0.0))
        net, ema = batch_norm(tf.nn.bias_add(net, biases), is_training, "bn", [0, 1, 2], 0.9)
        emas.append(ema)
        return tf.nn.relu(net)


def transform_net(point_cloud, is_training, emas, K=3):
    batch_size = point_cloud.get_shape()[0].value
    num_point = point_cloud.get_shape()[1].value
    net = conv2d(tf.expand_dims(point_cloud, -1), 16, [1, 3], "tconv1", is_training, emas)
    net = tf.nn.max_pool(net, [1, num_point, 1, 1], [1, 2, 2, 1], padding="VALID")
    net = tf.reshape(net, [batch_size, -1])
    with tf.variable_scope("transform_XYZ"):
        weights = tf.get_variable(
            "weights", [16, K * K], initializer=tf.constant_initializer(0.0), dtype=tf.float32
        )
        biases = tf.get_variable(
            "biases", [K * K], initializer=tf.constant_initializer(0.0), dtype=tf.float32
        )
        if FIXED:
            start = biases + tf.constant(np.eye(K).flatten(), dtype=tf.float32)
            return tf.reshape(tf.nn.bias_add(tf.matmul(net, weights), start), [batch_size, K, K])
        biases += tf.constant(np.eye(K).flatten(), dtype=tf.float32)
        transform = tf.nn.bias_add(tf.matmul(net, weights), biases)
    return tf.reshape(transform, [batch_size, K, K])


def get_model(point_cloud, is_training, emas):
    batch_size = point_cloud.get_shape()[0].value
    with tf.variable_scope("transform_net1"):
        transform = transform_net(point_cloud, is_training, emas)
    points = tf.matmul(point_cloud, transform)
    net = conv2d(tf.expand_dims(points, -1), 32, [1, 3], "conv1", is_training, emas)
    net = tf.reduce_max(net, axis=[1, 2])
    net = tf.reshape(net, [batch_size, -1])
    weights = _variable_with_weight_decay("fc_weights", [32, CLASSES], 0.1, 1e-3)
    return tf.matmul(net, weights)


def main():
    rng = np.random.RandomState(0)
    clouds = rng.normal(size=(STEPS + 1, BATCH, POINTS, 3)).astype(np.float32)
    labels = rng.randint(0, CLASSES, size=(STEPS + 1, BATCH))
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        points_pl = tf.placeholder(tf.float32, [BATCH, POINTS, 3])
        labels_pl = tf.placeholder(tf.int32, [BATCH])
        is_training_pl = tf.placeholder(tf.bool, shape=())
        emas = []
        pred = get_model(points_pl, is_training_pl, emas)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(logits=pred, labels=labels_pl)
        )
        loss += tf.add_n(tf.get_collection("losses"))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1))
        sess.run(tf.global_variables_initializer(), {is_training_pl: True})
        for step in range(STEPS):
            feed = {points_pl: clouds[step], labels_pl: labels[step], is_training_pl: True}
            _, loss_val = sess.run([train_op, loss], feed)
            print(f"loss_{step} = {loss_val:.9g}")
        shadows = [v for v in tf.global_variables() if "ExponentialMovingAverage" in v.name]
        for var in shadows:  # the batch norms' moving means and variances
            print(f"{var.op.name} = {_text(sess.run(var))}")
        logits = sess.run(pred, {points_pl: clouds[STEPS], is_training_pl: False})
        print(f"eval_logits = {_text(logits)}")


def _text(values):
    return ",".join(f"{x:.9g}" for x in np.ravel(values))


if __name__ == "__main__":
    main()
