"""A CNN builder in the style of tf_cnn_benchmarks' convnet_builder.py.

Our own short excerpt (not the benchmark's code) for tests/test_port_scan.py:
tf.layers through a compat.v1 alias, the private legacy layers, contrib batch
norm. An end-of-line `expect` comment naming rules marks each line where the scanner must
report a construct that breaks or changes numbers on TensorFlow 2.21.
"""

from collections import defaultdict

import tensorflow.compat.v1 as tf
from tensorflow.contrib import layers as contrib_layers  # expect: contrib
from tensorflow.python.layers import convolutional as conv_layers
from tensorflow.python.layers import pooling as pooling_layers


class ConvNetBuilder:
    def __init__(self, input_op, input_nchan, phase_train, use_tf_layers, data_format="NCHW"):
        self.top_layer = input_op
        self.top_size = input_nchan
        self.phase_train = phase_train
        self.use_tf_layers = use_tf_layers
        self.data_format = data_format
        self.channel_pos = "channels_last" if data_format == "NHWC" else "channels_first"
        self.counts = defaultdict(lambda: 0)

    def conv(self, num_out_channels, k_height, k_width, d_height=1, d_width=1, mode="SAME"):
        name = "conv" + str(self.counts["conv"])
        self.counts["conv"] += 1
        with tf.variable_scope(name):
            if self.use_tf_layers:
                conv = conv_layers.conv2d(
                    self.top_layer,
                    num_out_channels,
                    [k_height, k_width],
                    [d_height, d_width],
                    mode,
                    self.channel_pos,
                    use_bias=False,
                )
            else:
                kernel = tf.get_variable(
                    "conv2d/kernel",
                    [k_height, k_width, self.top_size, num_out_channels],
                    initializer=tf.variance_scaling_initializer(),
                )
                strides = [1, 1, d_height, d_width]
                conv = tf.nn.conv2d(self.top_layer, kernel, strides, mode, data_format="NCHW")
            self.top_layer = tf.nn.relu(conv)
            self.top_size = num_out_channels
            return self.top_layer

    def mpool(self, k_height, k_width, d_height=2, d_width=2, mode="VALID"):
        name = "mpool" + str(self.counts["mpool"])
        self.counts["mpool"] += 1
        if self.use_tf_layers:
            pool = pooling_layers.max_pooling2d(
                self.top_layer, [k_height, k_width], [d_height, d_width], mode, self.channel_pos
            )
        else:
            pool = tf.layers.max_pooling2d(  # expect: layers
                self.top_layer, [k_height, k_width], [d_height, d_width], mode, name=name
            )
        self.top_layer = pool
        return pool

    def affine(self, num_out_channels, stddev=0.01):
        num_channels_in = self.top_layer.shape[-1].value  # expect: dimension-value
        with tf.variable_scope("affine" + str(self.counts["affine"])):
            self.counts["affine"] += 1
            if self.use_tf_layers:
                return tf.layers.dense(self.top_layer, num_out_channels)  # expect: layers
            kernel = tf.get_variable(
                "weights",
                [num_channels_in, num_out_channels],
                initializer=tf.truncated_normal_initializer(stddev=stddev),
            )
            return tf.matmul(self.top_layer, kernel)

    def batch_norm(self, decay=0.999, scale=False, epsilon=0.001):
        name = "batchnorm" + str(self.counts["batchnorm"])
        self.counts["batchnorm"] += 1
        with tf.variable_scope(name) as scope:
            if self.use_tf_layers:
                layer = tf.layers.BatchNormalization(  # expect: layers-batch-norm
                    momentum=decay, scale=scale, epsilon=epsilon, fused=True, name=scope.name
                )
                bn = layer.apply(self.top_layer, training=self.phase_train)
            else:
                bn = contrib_layers.batch_norm(  # expect: contrib-batch-norm
                    self.top_layer,
                    decay=decay,
                    scale=scale,
                    epsilon=epsilon,
                    is_training=self.phase_train,
                    fused=True,
                    data_format=self.data_format,
                    scope=scope,
                )
        self.top_layer = bn
        return bn
