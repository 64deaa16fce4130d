"""The 1-D and 3-D legacy layers: ``conv1d`` (Tacotron's CBHG, text CNNs,
WaveNet-style causal stacks), ``conv3d``, ``conv3d_transpose``,
``separable_conv1d`` and their pooling. They are _conv.py's layers at
another rank, with the kernel shapes, variable names and computations of
TF 1.x's: the 1-D pooling and separable convolution ran as their 2-D ops on
a width-1 axis, the 3-D pooling channels-last."""

import tensorflow as tf

from tf1_train.compat._conv import (
    AveragePooling2D,
    Conv2D,
    Conv2DTranspose,
    MaxPooling2D,
    SeparableConv2D,
)

v1 = tf.compat.v1


class Conv1D(Conv2D):
    """``kernel`` [k, in, filters]; ``padding='causal'`` pads the left only."""

    base_name = "conv1d"
    rank = 1
    op_name = "Conv1D"


class Conv3D(Conv2D):
    """``kernel`` [kd, kh, kw, in, filters]."""

    base_name = "conv3d"
    rank = 3
    op_name = "Conv3D"


class Conv3DTranspose(Conv2DTranspose):
    """``kernel`` [kd, kh, kw, filters, in]."""

    base_name = "conv3d_transpose"
    rank = 3


class SeparableConv1D(SeparableConv2D):
    """``depthwise_kernel`` [k, in, m], ``pointwise_kernel`` [1, in*m, filters], run as
    the 2-D separable convolution over a height of 1, as the legacy layer ran it."""

    base_name = "separable_conv1d"
    rank = 1

    def call(self, inputs):
        inputs = self._causal(inputs)
        axis = 2 if self.nchw else 1  # the height of 1
        strides = (1, 1, 1, *self.strides) if self.nchw else (1, 1, *self.strides, 1)
        outputs = tf.nn.separable_conv2d(
            tf.expand_dims(inputs, axis),
            tf.expand_dims(self.depthwise_kernel, 0),
            tf.expand_dims(self.pointwise_kernel, 0),
            strides=strides,
            padding=self.op_padding,
            dilations=(1, *self.dilation_rate),
            data_format="NCHW" if self.nchw else "NHWC",
        )
        return self._finish(tf.squeeze(outputs, [axis]))


class _Pooling1D:
    """Pooling over steps: the 2-D op over [steps, 1], as the legacy layer pooled."""

    rank = 1

    def call(self, inputs):
        axis = 3 if self.data_format == "channels_first" else 2
        pooled = self._pool(tf.expand_dims(inputs, axis), (*self.pool_size, 1), (*self.strides, 1))
        return tf.squeeze(pooled, [axis])


class MaxPooling1D(_Pooling1D, MaxPooling2D):
    base_name = "max_pooling1d"


class AveragePooling1D(_Pooling1D, AveragePooling2D):
    base_name = "average_pooling1d"


class _Pooling3D:
    """Pooling over volumes, channels-last (channels_first is transposed there and
    back, as the legacy layer did)."""

    rank = 3

    def call(self, inputs):
        first = self.data_format == "channels_first"
        x = tf.transpose(inputs, (0, 2, 3, 4, 1)) if first else inputs
        outputs = type(self).pool_function(
            x,
            ksize=(1, *self.pool_size, 1),
            strides=(1, *self.strides, 1),
            padding=self.padding.upper(),
            data_format="NDHWC",
        )
        return tf.transpose(outputs, (0, 4, 1, 2, 3)) if first else outputs


class MaxPooling3D(_Pooling3D, MaxPooling2D):
    base_name = "max_pooling3d"
    pool_function = staticmethod(v1.nn.max_pool3d)


class AveragePooling3D(_Pooling3D, AveragePooling2D):
    base_name = "average_pooling3d"
    pool_function = staticmethod(v1.nn.avg_pool3d)
