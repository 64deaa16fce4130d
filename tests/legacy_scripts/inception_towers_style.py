"""A TF 1.x multi-GPU trainer in the manner of TensorFlow's own Inception
trainer (tensorflow/models' research/inception: inception_train.py and its
private slim), written for tf1_train's tests, not taken from it: ``tf.app``
flags; one tower per GPU under ``tf.device('/gpu:%d')`` and
``name_scope('tower_%d')``, variables made by a slim-style ``variable()`` on
``/cpu:0`` and shared by ``reuse``; batch norm whose moving averages go to
an update collection, taken from the last tower only; each tower's loss
from ``tf.contrib.nn.deprecated_flipped_softmax_cross_entropy_with_logits``
(logits first, label smoothing) added to a LOSSES collection read back by
tower scope, plus weight decay from ``get_variable``'s regularizer;
gradients averaged by ``expand_dims`` and ``concat``; RMSProp on an
exponentially decayed rate; moving averages of every loss, the
regularization terms included (as its distributed trainer kept them), and
of every variable; a Saver. Synthetic 16x16 images whose class
sets the mean, so the loss has something to learn.

python -m tf1_train.compat --v1 --gpus_as_cpus=2 inception_towers_style.py --train_dir=DIR
"""

import os

import numpy as np
import tensorflow as tf
from tensorflow.python.training import moving_averages

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string("train_dir", "/tmp/inception_style", "Checkpoints.")
tf.app.flags.DEFINE_integer("max_steps", 31, "Number of batches to run.")
tf.app.flags.DEFINE_integer("num_gpus", 2, "How many GPUs to use.")
tf.app.flags.DEFINE_integer("batch_size", 32, "Images per step, over all towers.")

NUM_CLASSES = 4
LOSSES_COLLECTION = "_losses"
UPDATE_OPS_COLLECTION = "_update_ops_"
VARIABLE_DEVICE = ["/cpu:0"]


def l2_regularizer(weight):
    def regularizer(tensor):
        return tf.multiply(weight, tf.nn.l2_loss(tensor), name="value")

    return regularizer


def variable(name, shape, initializer, weight_decay=0.0, trainable=True):
    regularizer = l2_regularizer(weight_decay) if weight_decay else None
    with tf.device(VARIABLE_DEVICE[0]):
        return tf.get_variable(
            name, shape, initializer=initializer, regularizer=regularizer, trainable=trainable
        )


def batch_norm(x, decay=0.9, epsilon=0.001):
    depth = x.get_shape()[-1]
    beta = variable("beta", [depth], tf.zeros_initializer())
    moving_mean = variable("moving_mean", [depth], tf.zeros_initializer(), trainable=False)
    moving_variance = variable("moving_variance", [depth], tf.ones_initializer(), trainable=False)
    tf.add_to_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES, moving_mean)
    tf.add_to_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES, moving_variance)
    mean, var = tf.nn.moments(x, [0, 1, 2])
    tf.add_to_collection(
        UPDATE_OPS_COLLECTION, moving_averages.assign_moving_average(moving_mean, mean, decay)
    )
    tf.add_to_collection(
        UPDATE_OPS_COLLECTION, moving_averages.assign_moving_average(moving_variance, var, decay)
    )
    return tf.nn.batch_normalization(x, mean, var, beta, None, epsilon)


def conv(x, depth, name):
    with tf.variable_scope(name):
        init = tf.truncated_normal_initializer(stddev=0.1)
        kernel = variable("weights", [3, 3, x.get_shape()[-1], depth], init, 4e-5)
        x = tf.nn.conv2d(x, kernel, [1, 1, 1, 1], "SAME")
        return tf.nn.relu(batch_norm(x))


def inference(images):
    x = conv(images, 16, "conv0")
    x = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    x = conv(x, 32, "conv1")
    x = tf.reduce_mean(x, [1, 2])
    with tf.variable_scope("logits"):
        weights = variable(
            "weights", [32, NUM_CLASSES], tf.truncated_normal_initializer(stddev=0.1)
        )
        biases = variable("biases", [NUM_CLASSES], tf.zeros_initializer())
        return tf.nn.xw_plus_b(x, weights, biases)


def cross_entropy_loss(logits, one_hot_labels, label_smoothing=0.1):
    num_classes = one_hot_labels.get_shape()[-1]
    smooth_positives = 1.0 - label_smoothing
    smooth_negatives = label_smoothing / int(num_classes)
    one_hot_labels = one_hot_labels * smooth_positives + smooth_negatives
    cross_entropy = tf.contrib.nn.deprecated_flipped_softmax_cross_entropy_with_logits(
        logits, one_hot_labels, name="xentropy"
    )
    loss = tf.reduce_mean(cross_entropy, name="value")
    tf.add_to_collection(LOSSES_COLLECTION, loss)
    return loss


def tower_loss(images, labels, scope, reuse):
    with tf.variable_scope(tf.get_variable_scope(), reuse=reuse):
        logits = inference(images)
    cross_entropy_loss(logits, tf.one_hot(labels, NUM_CLASSES))
    losses = tf.get_collection(LOSSES_COLLECTION, scope)
    regularization = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    total_loss = tf.add_n(losses + regularization, name="total_loss")
    averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    averages_op = averages.apply(losses + regularization + [total_loss])
    with tf.control_dependencies([averages_op]):
        return tf.identity(total_loss)


def average_gradients(tower_grads):
    average = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average.append((grad, grad_and_vars[0][1]))
    return average


def synthetic_batch(rng):
    labels = rng.randint(0, NUM_CLASSES, FLAGS.batch_size)
    images = rng.randn(FLAGS.batch_size, 16, 16, 3) * 0.5
    images += (labels[:, None, None, None] - 1.5) * 0.4
    return images.astype(np.float32), labels.astype(np.int32)


def train():
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        tf.set_random_seed(3)
        global_step = tf.get_variable(
            "global_step", [], tf.int64, initializer=tf.constant_initializer(0), trainable=False
        )
        lr = tf.train.exponential_decay(0.01, global_step, 100, 0.16, staircase=True)
        opt = tf.train.RMSPropOptimizer(lr, 0.9, momentum=0.9, epsilon=1.0)
        images = tf.placeholder(tf.float32, [FLAGS.batch_size, 16, 16, 3])
        labels = tf.placeholder(tf.int32, [FLAGS.batch_size])
        image_splits = tf.split(axis=0, num_or_size_splits=FLAGS.num_gpus, value=images)
        label_splits = tf.split(axis=0, num_or_size_splits=FLAGS.num_gpus, value=labels)
        tower_grads, reuse = [], None
        for i in range(FLAGS.num_gpus):
            with tf.device(f"/gpu:{i}"):
                with tf.name_scope(f"tower_{i}") as scope:
                    loss = tower_loss(image_splits[i], label_splits[i], scope, reuse)
                    reuse = True
                    batchnorm_updates = tf.get_collection(UPDATE_OPS_COLLECTION, scope)
                    tower_grads.append(opt.compute_gradients(loss))
        apply_op = opt.apply_gradients(average_gradients(tower_grads), global_step=global_step)
        variable_averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
        averages_op = variable_averages.apply(
            tf.trainable_variables() + tf.moving_average_variables()
        )
        train_op = tf.group(apply_op, averages_op, tf.group(*batchnorm_updates))
        saver = tf.train.Saver(tf.global_variables())
        sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
        sess.run(tf.global_variables_initializer())
        rng = np.random.RandomState(0)
        for step in range(FLAGS.max_steps):
            batch_images, batch_labels = synthetic_batch(rng)
            feed = {images: batch_images, labels: batch_labels}
            if step == 0:
                metadata = tf.RunMetadata()
                options = tf.RunOptions(trace_level=tf.RunOptions.SOFTWARE_TRACE)
                _, loss_value = sess.run([train_op, loss], feed, options, metadata)
                print(f"first_loss = {loss_value:.4f}")
                on = sorted({d.device.rsplit("/", 1)[-1] for d in metadata.step_stats.dev_stats})
                print("devices = " + ",".join("/" + d for d in on))
            else:
                _, loss_value = sess.run([train_op, loss], feed)
            assert not np.isnan(loss_value), "Model diverged with loss = NaN"
            if step + 1 == FLAGS.max_steps:
                saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"), global_step=step)
        print(f"last_loss = {loss_value:.4f}")
        print(f"towers = {FLAGS.num_gpus}")


def main(_):
    train()


if __name__ == "__main__":
    tf.app.run()
