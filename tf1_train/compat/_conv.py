"""2-D convolution, transposed and separable convolution, and pooling, with
the legacy signatures, defaults ('valid' padding, channels_last) and kernel
shapes, so checkpoints of the old layers load. The convolutions take their
rank from ``rank``: _conv_nd.py's 1-D and 3-D layers are these with another."""

from typing import Callable, Optional

import tensorflow as tf

from tf1_train.compat._base import (
    ZEROS,
    Layer,
    check_data_format,
    check_padding,
    get_activation,
    to_tuple,
)

v1 = tf.compat.v1
# tf.nn's data_format for each rank: (channels_last, channels_first)
FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


class _ConvBase(Layer):
    """Arguments every convolution shares; subclasses make the kernels."""

    rank = 2
    op_name = "Conv2D"

    def __init__(
        self,
        filters: int,
        kernel_size,
        strides=1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate=1,
        activation=None,
        use_bias: bool = True,
        bias_initializer=ZEROS,
        bias_regularizer: Optional[Callable] = None,
        bias_constraint: Optional[Callable] = None,
        trainable: bool = True,
        name: Optional[str] = None,
        activity_regularizer: Optional[Callable] = None,
        **kwargs,
    ):
        super().__init__(trainable, name, activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = to_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = to_tuple(strides, self.rank, "strides")
        self.padding = check_padding(padding, causal=self.rank == 1)
        self.data_format = check_data_format(data_format)
        self.dilation_rate = to_tuple(dilation_rate, self.rank, "dilation_rate")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.bias_initializer = bias_initializer
        self.bias_regularizer = bias_regularizer
        self.bias_constraint = bias_constraint

    @property
    def nchw(self) -> bool:
        return self.data_format == "channels_first"

    @property
    def tf_format(self) -> str:
        return FORMATS[self.rank][self.nchw]

    def _causal(self, inputs):
        """Conv1D's padding='causal': the left pad that keeps step t from seeing t+1
        (then 'valid'), as the legacy layer padded."""
        if self.padding != "causal":
            return inputs
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        pads = [[0, 0], [0, 0], [left, 0]] if self.nchw else [[0, 0], [left, 0], [0, 0]]
        return tf.pad(inputs, pads)

    @property
    def op_padding(self) -> str:
        return "VALID" if self.padding == "causal" else self.padding.upper()

    def _in_channels(self, input_shape: tf.TensorShape) -> int:
        channels = tf.compat.dimension_value(input_shape[1 if self.nchw else -1])
        if channels is None:
            raise ValueError(f"{self.base_name} needs a known channel dimension, got {input_shape}")
        return channels

    def _add_bias(self) -> None:
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                [self.filters],
                self.bias_initializer,
                self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def _finish(self, outputs):
        if self.use_bias:
            outputs = tf.nn.bias_add(
                outputs, self.bias, data_format="NCHW" if self.nchw else "NHWC"
            )
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs


class Conv2D(_ConvBase):
    """``kernel`` [kh, kw, in, filters], ``bias`` [filters]."""

    base_name = "conv2d"

    def __init__(
        self,
        filters,
        kernel_size,
        kernel_initializer=None,
        kernel_regularizer=None,
        kernel_constraint=None,
        **kwargs,
    ):
        super().__init__(filters, kernel_size, **kwargs)
        self.kernel_initializer = kernel_initializer
        self.kernel_regularizer = kernel_regularizer
        self.kernel_constraint = kernel_constraint

    def _kernel_shape(self, channels: int) -> list:
        return [*self.kernel_size, channels, self.filters]

    def build(self, input_shape: tf.TensorShape) -> None:
        shape = self._kernel_shape(self._in_channels(input_shape))
        self.kernel = self.add_weight(
            "kernel",
            shape,
            self.kernel_initializer,
            self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self._add_bias()
        self._tf1_build_ops()

    def _tf1_build_ops(self) -> None:
        """The constant TF 1.x's layer built here (its ``nn_ops.Convolution``'s
        ``dilation_rate``), unused: a graph-seeded program's later op seeds
        count it (--v1_seeds). A dilated convolution's call builds one itself."""
        if all(d == 1 for d in self.dilation_rate):
            tf.constant(list(self.dilation_rate), tf.int32, name="dilation_rate")

    def call(self, inputs):
        outputs = tf.nn.convolution(
            self._causal(inputs),
            self.kernel,
            strides=list(self.strides),
            padding=self.op_padding,
            dilations=list(self.dilation_rate),
            data_format=self.tf_format,
            name=self.op_name,
        )
        return self._finish(outputs)


def _deconv_length(size, kernel: int, stride: int, padding: str):
    if size is None:
        return None
    if padding == "valid":
        return size * stride + max(kernel - stride, 0)
    return size * stride


class Conv2DTranspose(Conv2D):
    """``kernel`` [kh, kw, filters, in]; output size as the legacy layer computed it."""

    base_name = "conv2d_transpose"

    def _kernel_shape(self, channels: int) -> list:
        return [*self.kernel_size, self.filters, channels]

    def _tf1_build_ops(self) -> None:
        pass  # TF 1.x's transposed convolutions built no Convolution

    def call(self, inputs):
        rank = self.rank
        axes = range(2, 2 + rank) if self.nchw else range(1, 1 + rank)
        # The output shape from the input's dynamic one, op for op as TF 1.x's
        # layer built it (a graph-seeded program's later op seeds count them,
        # --v1_seeds): the batch, each spatial size, its output length.
        dynamic = tf.shape(inputs)
        batch, sizes = dynamic[0], [dynamic[axis] for axis in axes]
        sizes = [
            _deconv_length(size, kernel, stride, self.padding)
            for size, kernel, stride in zip(sizes, self.kernel_size, self.strides)
        ]
        # Computed channels-last, as the legacy layer did on CPU.
        x = tf.transpose(inputs, (0, *range(2, 2 + rank), 1)) if self.nchw else inputs
        out_shape = tf.stack([batch, *sizes, self.filters])
        if rank == 2:
            out_shape[0]  # noqa: B018 (Keras 2's conv2d_transpose read it: an op TF 1.x's had)
        transpose = {2: v1.nn.conv2d_transpose, 3: v1.nn.conv3d_transpose}[rank]
        outputs = transpose(
            x, self.kernel, out_shape, (1, *self.strides, 1), padding=self.padding.upper()
        )
        if self.nchw:
            outputs = tf.transpose(outputs, (0, rank + 1, *range(1, rank + 1)))
        static = [inputs.shape[0]] + [
            _deconv_length(tf.compat.dimension_value(inputs.shape[a]), k, s, self.padding)
            for a, k, s in zip(axes, self.kernel_size, self.strides)
        ]
        static.insert(1 if self.nchw else rank + 1, self.filters)
        outputs.set_shape(static)
        return self._finish(outputs)


class SeparableConv2D(_ConvBase):
    """``depthwise_kernel`` [kh, kw, in, m], ``pointwise_kernel`` [1, 1, in*m, filters]
    (one 1 per spatial axis)."""

    base_name = "separable_conv2d"

    def __init__(
        self,
        filters,
        kernel_size,
        depth_multiplier: int = 1,
        depthwise_initializer=None,
        pointwise_initializer=None,
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        **kwargs,
    ):
        super().__init__(filters, kernel_size, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise = (depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        self.pointwise = (pointwise_initializer, pointwise_regularizer, pointwise_constraint)

    def build(self, input_shape: tf.TensorShape) -> None:
        channels = self._in_channels(input_shape)
        init, reg, con = self.depthwise
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            [*self.kernel_size, channels, self.depth_multiplier],
            init,
            reg,
            constraint=con,
        )
        init, reg, con = self.pointwise
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            [*(1,) * self.rank, channels * self.depth_multiplier, self.filters],
            init,
            reg,
            constraint=con,
        )
        self._add_bias()

    def call(self, inputs):
        strides = (1, 1, *self.strides) if self.nchw else (1, *self.strides, 1)
        outputs = tf.nn.separable_conv2d(
            inputs,
            self.depthwise_kernel,
            self.pointwise_kernel,
            strides=strides,
            padding=self.padding.upper(),
            dilations=self.dilation_rate,
            data_format="NCHW" if self.nchw else "NHWC",
        )
        return self._finish(outputs)


class _Pooling2D(Layer):
    pool_function = None
    rank = 2

    def __init__(
        self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs
    ):
        super().__init__(name=name, **kwargs)
        self.pool_size = to_tuple(pool_size, self.rank, "pool_size")
        given = strides if strides is not None else pool_size
        self.strides = to_tuple(given, self.rank, "strides")
        self.padding = check_padding(padding)
        self.data_format = check_data_format(data_format)

    def call(self, inputs):
        return self._pool(inputs, self.pool_size, self.strides)

    def _pool(self, inputs, pool_size, strides):
        if self.data_format == "channels_last":
            ksize, strides, fmt = (1, *pool_size, 1), (1, *strides, 1), "NHWC"
        else:
            ksize, strides, fmt = (1, 1, *pool_size), (1, 1, *strides), "NCHW"
        pool = type(self).pool_function
        return pool(
            inputs, ksize=ksize, strides=strides, padding=self.padding.upper(), data_format=fmt
        )


class MaxPooling2D(_Pooling2D):
    base_name = "max_pooling2d"
    pool_function = staticmethod(v1.nn.max_pool)


class AveragePooling2D(_Pooling2D):
    base_name = "average_pooling2d"
    pool_function = staticmethod(v1.nn.avg_pool)
