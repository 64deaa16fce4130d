"""A TF1 tutorial-style model module that defines its flags at import, as
the CIFAR-10 tutorial's cifar10.py did (--batch_size clashes with tf1_train's)."""

import tensorflow as tf

tf.compat.v1.flags.DEFINE_integer("batch_size", 128, "Number of images to process in a batch.")


def inference(images, is_training, num_classes):
    x = tf.reshape(images, [-1, int(images.shape[1:].num_elements())])
    return tf.matmul(x, tf.compat.v1.get_variable("w", [int(x.shape[-1]), num_classes]))
