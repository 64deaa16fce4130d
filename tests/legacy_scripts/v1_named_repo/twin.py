"""resnet.py's ``plain`` ported to TensorFlow 2 (``--tf2=twin:PlainTwin``):
a tf.Module whose variables carry the TF1 checkpoint names, its L2 terms
(contrib's ``l2_regularizer(0.0001)``: 0.0001 * sum(w**2) / 2) as
``extra_losses``. Written in TensorFlow 2's names, so it needs no ``--v1``."""

import tensorflow as tf

WEIGHT_DECAY = 0.0001


class PlainTwin(tf.Module):
    def __init__(self, image_shape, num_classes):
        super().__init__(name="plain_twin")
        channels = image_shape[-1]

        def variable(name, shape):  # port check loads the TF1 side's initial values
            return tf.Variable(tf.zeros(shape), name="network/" + name)

        self.kernel = variable("conv/conv2d/kernel", [3, 3, channels, 8])
        self.bias = variable("conv/conv2d/bias", [8])
        self.weights = variable("logit/dense/kernel", [8, num_classes])
        self.logit_bias = variable("logit/dense/bias", [num_classes])

    def __call__(self, images, training):
        x = tf.nn.conv2d(images, self.kernel, 1, "SAME") + self.bias
        x = tf.reduce_mean(tf.nn.relu(x), axis=[1, 2])
        return tf.matmul(x, self.weights) + self.logit_bias

    def extra_losses(self):
        return [WEIGHT_DECAY * tf.nn.l2_loss(w) for w in (self.kernel, self.weights)]
