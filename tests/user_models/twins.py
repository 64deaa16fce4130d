"""Users' TF2 twins of tests/user_models/tiny.py:build that go wrong in the
ways the bad-input table lists (each a plain tf.Module, as --tf2_model takes)."""

import tensorflow as tf

from tests.user_models.tiny import HIDDEN


def _size(image_shape):
    n = 1
    for d in image_shape:
        n *= d
    return n


class _Twin(tf.Module):
    """tiny.build's variables, by their TF1 names; subclasses break one thing."""

    def __init__(self, image_shape, num_classes, out=None, first="hidden/w"):
        super().__init__()
        self.w1 = tf.Variable(tf.zeros([_size(image_shape), HIDDEN]), name=first)
        self.b1 = tf.Variable(tf.zeros([HIDDEN]), name="hidden/b")
        self.w2 = tf.Variable(tf.zeros([HIDDEN, out or num_classes]), name="out/w")
        self.b2 = tf.Variable(tf.zeros([out or num_classes]), name="out/b")

    def __call__(self, images, training):
        # Each weight read in the images' type: float32, or bfloat16/float16
        # under --precision (the TF1 towers' custom getter casts the same way).
        w1, b1, w2, b2 = (tf.cast(v, images.dtype) for v in (self.w1, self.b1, self.w2, self.b2))
        x = tf.reshape(images, [tf.shape(images)[0], -1])
        return tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2


class TinyTwin(_Twin):
    """The faithful twin."""


class UncastTwin(_Twin):
    """Reads its float32 weights as they are: on bfloat16 images TensorFlow
    makes tf.matmul(bfloat16, float32) a float32 SparseMatMul, no error."""

    def __call__(self, images, training):
        x = tf.reshape(images, [tf.shape(images)[0], -1])
        return tf.matmul(tf.nn.relu(tf.matmul(x, self.w1) + self.b1), self.w2) + self.b2


class CenteredTwin(_Twin):
    """Centres its images with a float32 constant: the subtraction fails on
    bfloat16 images, as TensorFlow does not mix types."""

    def __init__(self, image_shape, num_classes):
        super().__init__(image_shape, num_classes)
        self.mean = tf.constant(0.0)

    def __call__(self, images, training):
        return super().__call__(images - self.mean, training)


class Float32Twin(_Twin):
    """Casts its images to float32 first: whatever --precision says, it
    computes in float32."""

    def __call__(self, images, training):
        return super().__call__(tf.cast(images, tf.float32), training)


class NoTrainingArgument(_Twin):
    def __call__(self, images):  # the step calls module(images, training=...)
        return super().__call__(images, True)


class SevenClasses(_Twin):
    def __init__(self, image_shape, num_classes):
        super().__init__(image_shape, num_classes, out=7)


class KerasNames(_Twin):
    """Its first kernel named as Keras would name it, not as TF1 did."""

    def __init__(self, image_shape, num_classes):
        super().__init__(image_shape, num_classes, first="dense/kernel")


class HalfTinyTwin(_Twin):
    """Computes in float16 by itself: its input and weights cast on use."""

    def __call__(self, images, training):
        w1, b1, w2, b2 = (tf.cast(v, tf.float16) for v in (self.w1, self.b1, self.w2, self.b2))
        x = tf.reshape(tf.cast(images, tf.float16), [tf.shape(images)[0], -1])
        return tf.cast(tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2, tf.float32)
