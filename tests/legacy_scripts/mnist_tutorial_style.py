"""A TF 1.x program in the manner of the "TensorFlow Mechanics 101" tutorial
(fully_connected_feed.py) and the many programs copied from it: the MNIST
files read by ``input_data.read_data_sets``, the tutorial's own ``mnist``
model module, placeholders fed by ``next_batch``, ``tf.app.run``, a summary
writer and a Saver, then the checkpoint restored in a new graph. Written for
tf1_train's tests, not taken from TensorFlow; ``import tensorflow as tf`` as on
TF 1.x, so it runs through ``python -m tf1_train.compat --v1``.

python mnist_tutorial_style.py --input_data_dir=D --log_dir=L
"""

import argparse
import os
import sys

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data, mnist

FLAGS = None


def placeholder_inputs(batch_size):
    images_placeholder = tf.placeholder(tf.float32, shape=(batch_size, mnist.IMAGE_PIXELS))
    labels_placeholder = tf.placeholder(tf.int32, shape=(batch_size))
    return images_placeholder, labels_placeholder


def fill_feed_dict(data_set, images_pl, labels_pl):
    images_feed, labels_feed = data_set.next_batch(FLAGS.batch_size, FLAGS.fake_data)
    return {images_pl: images_feed, labels_pl: labels_feed}


def do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_set):
    true_count = 0
    steps_per_epoch = data_set.num_examples // FLAGS.batch_size
    num_examples = steps_per_epoch * FLAGS.batch_size
    for _ in range(steps_per_epoch):
        feed_dict = fill_feed_dict(data_set, images_placeholder, labels_placeholder)
        true_count += sess.run(eval_correct, feed_dict=feed_dict)
    precision = float(true_count) / num_examples
    print(
        f"  Num examples: {num_examples}  Num correct: {true_count}  Precision @ 1: "
        f"{precision:0.04f}"
    )
    return precision


def run_training():
    data_sets = input_data.read_data_sets(
        FLAGS.input_data_dir, FLAGS.fake_data, validation_size=FLAGS.validation_size, seed=1
    )
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        images_placeholder, labels_placeholder = placeholder_inputs(FLAGS.batch_size)
        logits = mnist.inference(images_placeholder, FLAGS.hidden1, FLAGS.hidden2)
        loss = mnist.loss(logits, labels_placeholder)
        train_op = mnist.training(loss, FLAGS.learning_rate)
        eval_correct = mnist.evaluation(logits, labels_placeholder)
        summary = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        sess = tf.Session()
        summary_writer = tf.summary.FileWriter(FLAGS.log_dir, sess.graph)
        sess.run(init)
        for step in range(FLAGS.max_steps):
            feed_dict = fill_feed_dict(data_sets.train, images_placeholder, labels_placeholder)
            _, loss_value = sess.run([train_op, loss], feed_dict=feed_dict)
            if step == 0:
                print(f"first_loss = {loss_value:.4f}")
            if step % 100 == 0:
                summary_str = sess.run(summary, feed_dict=feed_dict)
                summary_writer.add_summary(summary_str, step)
                summary_writer.flush()
        print(f"last_loss = {loss_value:.4f}")
        checkpoint_file = os.path.join(FLAGS.log_dir, "model.ckpt")
        saver.save(sess, checkpoint_file, global_step=step)
        print("Validation Data Eval:")
        do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_sets.validation)
        print("Test Data Eval:")
        precision = do_eval(
            sess, eval_correct, images_placeholder, labels_placeholder, data_sets.test
        )
        print(f"test_precision = {precision:.4f}")
        print(f"epochs = {data_sets.train.epochs_completed}")
    restore(data_sets)


def restore(data_sets):
    with tf.Graph().as_default():
        images_placeholder, labels_placeholder = placeholder_inputs(FLAGS.batch_size)
        logits = mnist.inference(images_placeholder, FLAGS.hidden1, FLAGS.hidden2)
        eval_correct = mnist.evaluation(logits, labels_placeholder)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(FLAGS.log_dir))
            precision = do_eval(
                sess, eval_correct, images_placeholder, labels_placeholder, data_sets.test
            )
    print(f"restored_precision = {precision:.4f}")


def main(_):
    if tf.gfile.Exists(FLAGS.log_dir):
        tf.gfile.DeleteRecursively(FLAGS.log_dir)
    tf.gfile.MakeDirs(FLAGS.log_dir)
    run_training()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--max_steps", type=int, default=400)
    parser.add_argument("--hidden1", type=int, default=128)
    parser.add_argument("--hidden2", type=int, default=32)
    parser.add_argument("--batch_size", type=int, default=60)
    parser.add_argument("--validation_size", type=int, default=300)
    parser.add_argument("--input_data_dir", type=str, default="/tmp/tensorflow/mnist/input_data")
    parser.add_argument("--log_dir", type=str, default="/tmp/tensorflow/mnist/logs")
    parser.add_argument("--fake_data", default=False, action="store_true")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
