"""A legacy TF-slim training program in the style of tensorflow/models'
research/slim trainer (written for tf1_train's tests), run unmodified
through ``python -m tf1_train.compat``.

It does what that trainer does and what broke on TensorFlow 2.21: imports
``tensorflow.contrib.quantize`` and uses it only under ``--quantize_delay``;
says ``np.int``; reads TFRecords through ``slim.dataset_data_provider`` and
``slim.tfexample_decoder.Image`` (tf-slim's ``control_flow_ops.case``); builds
inside ``with tf.Graph().as_default():`` without leaving eager mode, and
trains with ``slim.learning.train`` (a ``tf.train.Supervisor``).

The records (``--dataset_dir``/data.tfrecord) hold 8x8x3 ``raw`` images whose
class is their brightness. Prints ``final_loss=...`` at the end.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
import tf_slim as slim
from tensorflow.contrib import quantize as contrib_quantize

tf.app.flags.DEFINE_string("dataset_dir", None, "Directory holding data.tfrecord.")
tf.app.flags.DEFINE_string("train_dir", None, "Checkpoints and events.")
tf.app.flags.DEFINE_integer("max_number_of_steps", 6, "Training steps.")
tf.app.flags.DEFINE_integer("quantize_delay", -1, "Quantized training from this step; -1: off.")
FLAGS = tf.app.flags.FLAGS

SIZE = np.int(8)  # NumPy removed np.int in 1.24
NUM_SAMPLES = 32


def get_dataset():
    keys_to_features = {
        "image/encoded": tf.FixedLenFeature((), tf.string, default_value=""),
        "image/format": tf.FixedLenFeature((), tf.string, default_value="raw"),
        "image/class/label": tf.FixedLenFeature([], tf.int64, default_value=0),
    }
    items_to_handlers = {
        "image": slim.tfexample_decoder.Image(shape=[SIZE, SIZE, 3]),
        "label": slim.tfexample_decoder.Tensor("image/class/label"),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(keys_to_features, items_to_handlers)
    return slim.dataset.Dataset(
        data_sources=os.path.join(FLAGS.dataset_dir, "data.tfrecord"),
        reader=tf.TFRecordReader,
        decoder=decoder,
        num_samples=NUM_SAMPLES,
        items_to_descriptions={},
        num_classes=2,
    )


def main(_):
    with tf.Graph().as_default():
        slim.create_global_step()
        provider = slim.dataset_data_provider.DatasetDataProvider(
            get_dataset(), num_readers=1, shuffle=False
        )
        image, label = provider.get(["image", "label"])
        image = tf.to_float(image) / 255.0
        images, labels = tf.train.batch([image, label], batch_size=4, num_threads=1)
        logits = slim.fully_connected(slim.flatten(images), 2, activation_fn=None, scope="logits")
        tf.losses.sparse_softmax_cross_entropy(labels, logits)
        total_loss = tf.losses.get_total_loss()
        if FLAGS.quantize_delay >= 0:
            contrib_quantize.create_training_graph(quant_delay=FLAGS.quantize_delay)
        train_op = slim.learning.create_train_op(total_loss, tf.train.GradientDescentOptimizer(0.1))
        final_loss = slim.learning.train(
            train_op,
            logdir=FLAGS.train_dir,
            number_of_steps=FLAGS.max_number_of_steps,
            save_summaries_secs=600,
            save_interval_secs=600,
        )
    print(f"final_loss={final_loss:f}")


if __name__ == "__main__":
    tf.app.run()
