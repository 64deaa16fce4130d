"""A multi-GPU CIFAR-10 trainer written the way the TF1 tutorials wrote them.

Our own short excerpt (not the tutorial's code) for tests/test_port_scan.py:
an end-of-line `expect` comment naming rules marks each line where the scanner must report
a construct that breaks or changes numbers on TensorFlow 2.21.
"""

import os

import tensorflow as tf

BATCH = 128
TOWERS = 2
TRAIN_DIR = "/tmp/cifar10_train"
DATA_DIR = "/tmp/cifar10_data"


def _variable_on_cpu(name, shape, initializer):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)


def _variable_with_weight_decay(name, shape, stddev, wd):
    var = _variable_on_cpu(name, shape, tf.truncated_normal_initializer(stddev=stddev))
    if wd is not None:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss"))
    return var


def distorted_inputs():
    files = [os.path.join(DATA_DIR, f"data_batch_{i}.bin") for i in range(1, 6)]
    for f in files:
        if not tf.gfile.Exists(f):
            raise ValueError("Failed to find file: " + f)
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.FixedLengthRecordReader(record_bytes=1 + 32 * 32 * 3)
    _, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
    image = tf.reshape(tf.strided_slice(record, [1], [1 + 3072]), [3, 32, 32])
    image = tf.random_crop(tf.cast(tf.transpose(image, [1, 2, 0]), tf.float32), [24, 24, 3])
    images, labels = tf.train.shuffle_batch(
        [image, label], batch_size=BATCH, capacity=20000, min_after_dequeue=10000
    )
    tf.summary.image("images", images)  # expect: tf2-summary-merge-fetched
    return images, tf.reshape(labels, [BATCH])


def inference(images):
    with tf.variable_scope("conv1") as scope:
        kernel = _variable_with_weight_decay("weights", [5, 5, 3, 64], stddev=5e-2, wd=0.0)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu("biases", [64], tf.constant_initializer(0.0))
        conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
        tf.summary.histogram("conv1/activations", conv1)  # expect: tf2-summary-merge-fetched
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    with tf.variable_scope("local3") as scope:
        reshape = tf.reshape(pool1, [BATCH, -1])
        dim = reshape.get_shape()[1].value  # expect: dimension-value
        weights = _variable_with_weight_decay("weights", [dim, 10], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu("biases", [10], tf.constant_initializer(0.1))
        return tf.add(tf.matmul(reshape, weights), biases, name=scope.name)


def tower_loss(scope, images, labels):
    logits = inference(images)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    tf.add_to_collection("losses", tf.reduce_mean(cross_entropy, name="cross_entropy"))
    total_loss = tf.add_n(tf.get_collection("losses", scope), name="total_loss")
    tf.summary.scalar("total_loss", total_loss)  # expect: tf2-summary-merge-fetched
    return total_loss


def average_gradients(tower_grads):
    average = []
    for grad_and_vars in zip(*tower_grads):
        grads = tf.concat(axis=0, values=[tf.expand_dims(g, 0) for g, _ in grad_and_vars])
        average.append((tf.reduce_mean(grads, 0), grad_and_vars[0][1]))
    return average


def train():
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.get_variable(
            "global_step", [], initializer=tf.constant_initializer(0), trainable=False
        )
        lr = tf.train.exponential_decay(0.1, global_step, 350 * 390, 0.1, staircase=True)
        opt = tf.train.GradientDescentOptimizer(lr)
        images, labels = distorted_inputs()
        # expect: contrib-prefetch-queue
        batch_queue = tf.contrib.slim.prefetch_queue.prefetch_queue(
            [images, labels], capacity=2 * TOWERS
        )
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(TOWERS):
                with tf.device(f"/gpu:{i}"), tf.name_scope(f"tower_{i}") as scope:
                    image_batch, label_batch = batch_queue.dequeue()
                    loss = tower_loss(scope, image_batch, label_batch)
                    tf.get_variable_scope().reuse_variables()
                    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                    tower_grads.append(opt.compute_gradients(loss))
        grads = average_gradients(tower_grads)
        # expect: tf2-summary-merge-fetched
        summaries.append(tf.summary.scalar("learning_rate", lr))
        apply_op = opt.apply_gradients(grads, global_step=global_step)
        averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
        train_op = tf.group(apply_op, averages.apply(tf.trainable_variables()))
        saver = tf.train.Saver(tf.global_variables())
        summary_op = tf.summary.merge(summaries)
        sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
        sess.run(tf.global_variables_initializer())
        tf.train.start_queue_runners(sess=sess)
        writer = tf.summary.FileWriter(TRAIN_DIR, sess.graph)
        for step in range(1000):
            _, loss_value = sess.run([train_op, loss])
            if step % 100 == 0:
                writer.add_summary(sess.run(summary_op), step)
                saver.save(sess, os.path.join(TRAIN_DIR, "model.ckpt"), global_step=step)


def main(argv=None):
    if tf.gfile.Exists(TRAIN_DIR):
        tf.gfile.DeleteRecursively(TRAIN_DIR)
    tf.gfile.MakeDirs(TRAIN_DIR)
    train()


if __name__ == "__main__":
    tf.app.run()
