# ruff: noqa
"""A TF 1.x script in the manner of Tacotron-2's WaveNet vocoder
(wavenet_vocoder/models/modules.py): weight-normalised causal convolutions
written as ``tf.keras.layers.Wrapper`` subclasses around ``tf.layers.Conv1D``,
which check the layer with ``isinstance(layer, tf.layers.Layer)``, track it
with ``_track_checkpointable``, set a ``tf.layers.InputSpec``, build the
layer and add its ``g`` with ``add_variable`` themselves, and call
``layer.call`` directly; a residual stack of them trained with Adam and
saved with a Saver. Written for TF 1.x (``import tensorflow as tf`` is the
v1 API); run it with ``python -m tf1_train.compat --v1
wavenet_wrapper_style.py LOGDIR``. Ours, not Tacotron-2's code.
"""

import os
import sys

import numpy as np
import tensorflow as tf


class WeightNorm(tf.keras.layers.Wrapper):
    def __init__(self, layer, name=None, **kwargs):
        if not isinstance(layer, tf.layers.Layer):
            raise ValueError("WeightNorm wraps a tf.layers layer, got %r" % (layer,))
        super(WeightNorm, self).__init__(layer, name=name, **kwargs)
        self._track_checkpointable(layer, name="layer")

    def build(self, input_shape):
        input_shape = tf.TensorShape(input_shape).as_list()
        self.input_spec = tf.layers.InputSpec(shape=input_shape)
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = False
            depth = int(self.layer.kernel.shape[-1])
            axes = list(range(self.layer.kernel.shape.ndims - 1))
            self.layer.v = self.layer.kernel
            self.layer.g = self.layer.add_variable(
                name="g",
                shape=(depth,),
                initializer=tf.constant_initializer(1.0),
                dtype=self.layer.kernel.dtype,
                trainable=True,
            )
            self.layer.kernel = tf.nn.l2_normalize(self.layer.v, axis=axes) * self.layer.g
            self.layer.built = True
        super(WeightNorm, self).build()
        self.built = True

    def call(self, inputs):
        return self.layer.call(inputs)


class CausalConv1D(tf.keras.layers.Wrapper):
    def __init__(self, filters, kernel_size, dilation_rate=1, name=None):
        layer = tf.layers.Conv1D(filters, kernel_size, dilation_rate=dilation_rate, name=name)
        super(CausalConv1D, self).__init__(WeightNorm(layer), name=name)
        self._track_checkpointable(self.layer, name="layer")
        self.kw = kernel_size
        self.dilation = dilation_rate

    def build(self, input_shape):
        self.layer.build(input_shape)
        super(CausalConv1D, self).build()

    def call(self, inputs):
        pad = (self.kw - 1) * self.dilation
        return self.layer.call(tf.pad(inputs, [[0, 0], [pad, 0], [0, 0]]))


logdir = sys.argv[1]
steps, channels = 32, 8
x = tf.placeholder(tf.float32, [4, steps, 1])
y = tf.placeholder(tf.float32, [4, steps, 1])
with tf.variable_scope("WaveNet_model"):
    h = CausalConv1D(channels, 2, name="first_conv")(x)
    for i, rate in enumerate([1, 2, 4]):
        gate = CausalConv1D(2 * channels, 2, rate, name="residual_conv_%d" % i)(h)
        a, b = tf.split(gate, 2, axis=-1)
        h = h + tf.tanh(a) * tf.sigmoid(b)
    out = CausalConv1D(1, 1, name="last_conv")(h)
loss = tf.reduce_mean(tf.square(out - y))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

t = np.arange(steps + 1, dtype=np.float32)
wave = np.sin(t[None, :] * np.array([[0.3], [0.5], [0.7], [0.9]], np.float32))
feed = {x: wave[:, :-1, None], y: wave[:, 1:, None]}  # predict the next sample
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, feed)
    for _ in range(60):
        sess.run(train_op, feed)
    print("loss %.4f -> %.4f" % (first, sess.run(loss, feed)))
    saver.save(sess, os.path.join(logdir, "model.ckpt"))
