"""resnet.py's network ported to TensorFlow 2 (``--tf2=twin:ResNetTwin``), on
tf1_train.tf2.layers' batch norm (whose moving statistics the TF2 step moves,
as the TF1 towers do), its variables named as TF1 names them, its L2 terms
(contrib's ``l2_regularizer(0.0001)``: 0.0001 * sum(w**2) / 2) as
``extra_losses``. Written in TensorFlow 2's names, so it needs no ``--v1``.

ops.py asks for epsilon 1e-5, which TF 1.x's fused kernel raised to
1.001e-5 (``--v1`` runs it so): ``ResNetTwin`` uses that, ``AsWritten`` the
1e-5 of the code, which port check names."""

import tensorflow as tf

from tf1_train.tf2 import layers
from tf1_train.tf2.models import Model

WEIGHT_DECAY = 0.0001


def zeros(shape, seed):  # port check loads the TF1 side's initial values
    return tf.zeros(shape)


class ResNetTwin(Model):
    EPSILON = 1.001e-5

    def __init__(self, image_shape, num_classes):
        super().__init__("resnet_twin")
        self.kernels = []
        self.conv = self._conv("network/conv", image_shape[-1], 8, 3)
        self.blocks = [self._block("resblock0_0", 8, 8), self._block("resblock1_0", 8, 16, 2)]
        self.bn = self._bn("network/batch_norm", 16)
        self.logit = (
            self._variable("network/logit/dense/kernel", [16, num_classes]),
            self._variable("network/logit/dense/bias", [num_classes]),
        )
        self.kernels.append(self.logit[0])

    def _variable(self, name, shape):
        return self.params.create(name, shape, zeros)

    def _conv(self, scope, cin, cout, size, stride=1):
        kernel = self._variable(f"{scope}/conv2d/kernel", [size, size, cin, cout])
        self.kernels.append(kernel)
        return kernel, self._variable(f"{scope}/conv2d/bias", [cout]), stride

    def _bn(self, name, channels):
        return layers.BatchNorm(self.params, name, channels, decay=0.9, epsilon=self.EPSILON)

    def _block(self, name, cin, cout, stride=1):
        scope = "network/" + name
        return {
            "bn0": self._bn(f"{scope}/batch_norm_0", cin),
            "conv0": self._conv(f"{scope}/conv_0", cin, cout, 3, stride),
            "init": self._conv(f"{scope}/conv_init", cin, cout, 1, stride) if stride > 1 else None,
            "bn1": self._bn(f"{scope}/batch_norm_1", cout),
            "conv1": self._conv(f"{scope}/conv_1", cout, cout, 3),
        }

    @staticmethod
    def _apply(conv, x):
        kernel, bias, stride = conv
        return tf.nn.conv2d(x, kernel, stride, "SAME") + bias

    def __call__(self, images, training, stats=None):
        x = self._apply(self.conv, images)
        for b in self.blocks:
            y = self._apply(b["conv0"], tf.nn.relu(b["bn0"](x, training, stats)))
            shortcut = x if b["init"] is None else self._apply(b["init"], x)
            y = self._apply(b["conv1"], tf.nn.relu(b["bn1"](y, training, stats)))
            x = y + shortcut
        x = tf.reduce_mean(tf.nn.relu(self.bn(x, training, stats)), axis=[1, 2])
        return tf.matmul(x, self.logit[0]) + self.logit[1]

    def extra_losses(self):
        return [WEIGHT_DECAY * tf.nn.l2_loss(w) for w in self.kernels]


class AsWritten(ResNetTwin):
    EPSILON = 1e-5
