"""Legacy-layer models and the harness that measures them, shared by
scripts/make_layer_goldens.py (run with the real tf.compat.v1.layers from
tf_keras) and tests/test_compat_layers.py (run with tf1_train.compat.layers).

Each builder gets ``tf`` and a layers module ``L`` and returns the tensors to
evaluate, a feed dict and the input placeholders. ``measure`` builds one model
in a fresh graph, gives every variable fixed values (drawn here from the
variable's name, or taken from the goldens), and records names, collections,
outputs, gradients, regularization terms and the moving statistics after one
run of UPDATE_OPS (op by op, in collection order). This module imports
neither TensorFlow nor tf1_train.
"""

import zlib

import numpy as np


def _input(tf, shape, seed=0):
    data = np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)
    return tf.compat.v1.placeholder(tf.float32, shape, name="x"), data


def _l2(tf, scale):
    return lambda w: scale * tf.nn.l2_loss(w)


def mlp(tf, L):
    x, data = _input(tf, [4, 6])
    h = L.dense(x, 16, tf.nn.relu, kernel_regularizer=_l2(tf, 0.01), bias_regularizer=_l2(tf, 0.1))
    h = L.dense(h, 8, activation=tf.tanh, activity_regularizer=lambda a: tf.reduce_sum(a * a))
    seq = L.dense(tf.reshape(h, [4, 2, 4]), 5, name="per_step")  # rank-3 input: tensordot
    out = L.dense(h, 3, use_bias=False, name="logits")
    return {"out": out, "seq": seq}, {x: data}, [x]


def _convnet(tf, L, training):
    x, data = _input(tf, [4, 8, 8, 3], seed=1)
    h = L.conv2d(x, 6, 3, padding="same", activation=tf.nn.relu)
    h = L.max_pooling2d(h, 2, 2)
    h = L.batch_normalization(h, training=training)
    h = L.conv2d(h, 5, [3, 2], strides=(1, 1), kernel_regularizer=_l2(tf, 0.001))
    h = L.batch_normalization(h, training=training, fused=False, momentum=0.9)
    h = L.dropout(h, rate=0.5)  # the legacy default training=False: identity
    h = L.flatten(h)
    out = L.dense(h, 4)
    return {"out": out}, {x: data}, [x]


def convnet_train(tf, L):
    return _convnet(tf, L, True)


def convnet_infer(tf, L):
    return _convnet(tf, L, False)


def convnet_bool_tensor(tf, L):
    training = tf.compat.v1.placeholder(tf.bool, [], name="is_training")
    fetches, feed, inputs = _convnet(tf, L, training)
    feed[training] = True
    return fetches, feed, inputs


def batchnorm_variants(tf, L):
    x, data = _input(tf, [5, 4, 3, 2], seed=2)
    flat, fdata = _input(tf, [6, 3], seed=3)
    a = L.batch_normalization(x, axis=1, training=True, fused=True, epsilon=1e-2)
    b = L.batch_normalization(x, axis=2, training=True, center=False)
    c = L.batch_normalization(x, training=True, scale=False, fused=False)
    d = L.batch_normalization(flat, training=True, momentum=0.5, name="dense_bn")
    e = L.batch_normalization(x, training=True, trainable=False, name="frozen")
    g = L.batch_normalization(
        x, training=True, gamma_regularizer=_l2(tf, 0.5), beta_regularizer=_l2(tf, 0.25)
    )
    h = L.batch_normalization(x)  # the legacy default: training=False
    layer = L.BatchNormalization(momentum=0.8)
    i = layer(x, training=True) + layer(x * 3.0, training=True)
    fetches = {"a": a, "b": b, "c": c, "d": d, "e": e, "g": g, "h": h, "i": i}
    return fetches, {x: data, flat: fdata}, [x, flat]


def batchnorm_5d(tf, L):
    x, data = _input(tf, [2, 3, 2, 2, 3], seed=9)
    a = L.batch_normalization(x, training=True)
    b = L.batch_normalization(x, axis=1, training=True)
    c = L.batch_normalization(x, axis=2, training=True)
    return {"a": a, "b": b, "c": c}, {x: data}, [x]


def batchnorm_renorm(tf, L):
    x, data = _input(tf, [6, 4, 4, 3], seed=10)
    flat, fdata = _input(tf, [8, 5], seed=11)
    clipping = {"rmax": 1.5, "rmin": 0.7, "dmax": 0.3}
    a = L.batch_normalization(x, training=True, renorm=True)  # fused=None: unfused
    b = L.batch_normalization(
        x, axis=1, training=True, renorm=True, renorm_momentum=0.9, momentum=0.8,
        renorm_clipping=clipping, fused=True,
    )  # fmt: skip
    c = L.batch_normalization(flat, training=True, renorm=True, scale=False,
                              renorm_clipping={"rmax": 2.0}, epsilon=0.01)  # fmt: skip
    d = L.batch_normalization(flat, renorm=True, center=False, name="renorm_infer")
    return {"a": a, "b": b, "c": c, "d": d}, {x: data, flat: fdata}, [x, flat]


def batchnorm_renorm_switch(tf, L):
    x, data = _input(tf, [6, 4, 4, 3], seed=12)
    training = tf.compat.v1.placeholder(tf.bool, [], name="is_training")
    clipping = {"rmax": 1.2, "rmin": 0.8, "dmax": 0.1}
    a = L.batch_normalization(x, training=training, renorm=True, renorm_clipping=clipping)
    return {"a": a}, {x: data, training: True}, [x]


def _adjustment(tf):
    def adjust(shape):
        channel = tf.cast(tf.range(shape[-1]), tf.float32)
        return 0.9 + 0.1 * channel, -0.05 * channel

    return adjust


def batchnorm_ghost(tf, L):
    x, data = _input(tf, [8, 3, 3, 4], seed=13)
    flat, fdata = _input(tf, [6, 5], seed=14)
    a = L.batch_normalization(x, training=True, virtual_batch_size=2)
    b = L.batch_normalization(flat, training=True, virtual_batch_size=3, renorm=True)
    c = L.batch_normalization(x, axis=1, training=True, virtual_batch_size=4, fused=False)
    d = L.batch_normalization(x, virtual_batch_size=2, name="ghost_infer")
    e = L.batch_normalization(x, training=True, adjustment=_adjustment(tf), name="adjusted")
    f = L.batch_normalization(flat, training=True, renorm=True, adjustment=_adjustment(tf))
    fetches = {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f}
    return fetches, {x: data, flat: fdata}, [x, flat]


def dropout_training(tf, L):
    tf.compat.v1.set_random_seed(1234)
    x, data = _input(tf, [8, 10], seed=4)
    a = L.dropout(x, rate=0.25, seed=5, training=True)
    b = L.dropout(x, rate=0.5, noise_shape=[8, 1], seed=6, training=True)
    c = L.dropout(x, rate=0.5, training=False)
    layer = L.Dropout(0.5, seed=9)
    d = layer(x, training=True) - layer(x, training=True)
    return {"a": a, "b": b, "c": c, "d": d}, {x: data}, [x]


def reuse_twice(tf, L):
    """A tower built twice under variable_scope(reuse=True), then AUTO_REUSE."""
    x, data = _input(tf, [3, 6, 6, 2], seed=5)

    def tower(inputs, training):
        h = L.conv2d(inputs, 4, 3, activation=tf.nn.relu, kernel_regularizer=_l2(tf, 0.01))
        h = L.batch_normalization(h, training=training)
        h = L.flatten(h)
        h = L.dense(h, 5, name="fc")
        return L.dense(h, 2)

    with tf.compat.v1.variable_scope("model"):
        first = tower(x, True)
    with tf.compat.v1.variable_scope("model", reuse=True):
        second = tower(x * 2.0, False)
    with tf.compat.v1.variable_scope("model", reuse=tf.compat.v1.AUTO_REUSE):
        third = tower(x - 1.0, True)
    again = L.dense(tf.reshape(x, [3, -1]), 2, name="shared")
    again2 = L.dense(tf.reshape(x, [3, -1]) + 1.0, 2, name="shared", reuse=True)
    return (
        {"first": first, "second": second, "third": third, "a": again, "b": again2},
        {x: data},
        [x],
    )


def unnamed_in_scope(tf, L):
    x, data = _input(tf, [2, 5], seed=6)
    with tf.compat.v1.variable_scope("block"):
        a = L.dense(x, 4)
        b = L.dense(x, 4)
        c = L.dense(b, 3, name="head")
        b2 = L.dense(x * 2.0, 4, reuse=True)  # unnamed + reuse: block/dense again
    with tf.compat.v1.variable_scope("block_b"):
        layer = L.Dense(3, name="named_class")
        d = layer(a) + layer(b)
        e = L.Dense(3)(a)
        f = L.BatchNormalization()(c, training=True)
        h = L.Dense(2, name="twice")(a) + L.Dense(2, name="twice")(a)
    g = L.dense(x, 2)
    fetches = {"a": a, "b": b, "b2": b2, "c": c, "d": d, "e": e, "f": f, "g": g, "h": h}
    return fetches, {x: data}, [x]


def conv_family(tf, L):
    x, data = _input(tf, [2, 7, 7, 3], seed=7)
    t = L.conv2d_transpose(x, 4, 3, strides=2, activation=tf.nn.relu)
    t2 = L.conv2d_transpose(x, 2, [2, 3], strides=(2, 1), padding="same", use_bias=False)
    s = L.separable_conv2d(x, 5, 3, depth_multiplier=2, padding="same", name="sep")
    s2 = L.separable_conv2d(
        x, 4, 2, strides=2, pointwise_regularizer=_l2(tf, 0.1), depthwise_regularizer=_l2(tf, 0.2)
    )
    p = L.average_pooling2d(x, 3, 2, padding="same")
    q = L.max_pooling2d(x, [2, 3], [1, 2])
    d = L.conv2d(x, 3, 3, dilation_rate=2, kernel_regularizer=_l2(tf, 0.3))
    return {"t": t, "t2": t2, "s": s, "s2": s2, "p": p, "q": q, "d": d}, {x: data}, [x]


def channels_first(tf, L):
    x, data = _input(tf, [2, 3, 6, 6], seed=8)
    h = L.conv2d(x, 4, 3, data_format="channels_first", padding="same")
    h = L.batch_normalization(h, axis=1, training=True)
    p = L.max_pooling2d(h, 2, 2, data_format="channels_first")
    a = L.average_pooling2d(h, 2, 2, data_format="channels_first")
    f = L.flatten(p, data_format="channels_first")
    return {"h": h, "p": p, "a": a, "f": f}, {x: data}, [x]


def conv1d_family(tf, L):
    """Tacotron's CBHG in small: a bank of 1-D convolutions, max_pooling1d with stride
    1, projections; causal, strided, dilated and channels-first ones besides."""
    x, data = _input(tf, [2, 9, 4], seed=9)
    bank = [L.conv1d(x, 3, k, activation=tf.nn.relu, padding="same") for k in (1, 2, 3)]
    h = L.max_pooling1d(tf.concat(bank, axis=-1), 2, 1, padding="same")
    h = L.conv1d(h, 4, 3, padding="same", kernel_regularizer=_l2(tf, 0.1), name="proj1")
    c = L.conv1d(x, 4, 3, dilation_rate=2, padding="causal", name="causal")
    s = L.conv1d(x, 3, 2, strides=2, use_bias=False)
    a = L.average_pooling1d(x, 3, 2)
    first = tf.transpose(x, [0, 2, 1])
    f = L.max_pooling1d(L.conv1d(first, 3, 2, data_format="channels_first"), 2, 2,
                        data_format="channels_first")  # fmt: skip
    sep = L.separable_conv1d(x, 3, 3, depth_multiplier=2, padding="same")
    layer = L.Conv1D(2, 1, name="shared")
    p = layer(h) + layer(c)
    fetches = {"h": h, "c": c, "s": s, "a": a, "f": f, "sep": sep, "p": p}
    return fetches, {x: data}, [x]


def conv3d_family(tf, L):
    """Volumes: conv3d, its transpose and the 3-D pooling (VoxNet-style code)."""
    x, data = _input(tf, [2, 5, 6, 6, 2], seed=10)
    h = L.conv3d(x, 3, 3, padding="same", activation=tf.nn.relu)
    s = L.conv3d(x, 2, [2, 3, 3], strides=(1, 2, 2), kernel_regularizer=_l2(tf, 0.2))
    m = L.max_pooling3d(h, 2, 2)
    a = L.average_pooling3d(h, [1, 2, 2], [1, 2, 2], padding="same")
    t = L.conv3d_transpose(m, 2, 3, strides=2)
    t2 = L.conv3d_transpose(x, 2, [2, 2, 3], strides=(1, 2, 1), padding="same", use_bias=False)
    return {"h": h, "s": s, "m": m, "a": a, "t": t, "t2": t2}, {x: data}, [x]


def wrapped_layers(tf, L):
    """WaveNet's weight-normalised causal convolutions in small: Keras'
    ``Wrapper`` subclassed around ``tf.layers`` layers, building the layer and
    adding its variables itself, nested once, and one left to the default
    build (``tf.keras.layers.Wrapper`` is TF 1.x's there: run under install()
    on our side)."""
    v1 = tf.compat.v1

    class Normed(tf.keras.layers.Wrapper):
        def __init__(self, layer, **kwargs):
            super().__init__(layer, **kwargs)
            self._track_trackable(layer, name="layer")

        def build(self, input_shape):
            input_shape = tf.TensorShape(input_shape).as_list()
            self.input_spec = L.InputSpec(shape=input_shape)
            self.layer.build(input_shape)
            self.layer.built = False
            kernel = self.layer.kernel
            g = self.layer.add_variable("g", (kernel.shape[-1],), initializer=v1.ones_initializer())
            self.layer.kernel = tf.nn.l2_normalize(kernel, axis=[0, 1]) * g
            self.layer.built = True
            super().build()

        def call(self, inputs):
            return self.layer.call(inputs)

    class Causal(tf.keras.layers.Wrapper):
        def build(self, input_shape):
            self.layer.build(input_shape)
            super().build()

        def call(self, inputs):
            width = self.layer.layer.kernel_size[0] - 1
            return self.layer.call(tf.pad(inputs, [[0, 0], [width, 0], [0, 0]]))

    class Doubled(tf.keras.layers.Wrapper):
        def call(self, inputs):
            return 2.0 * self.layer(inputs)

    x, data = _input(tf, [2, 7, 3], seed=11)
    with v1.variable_scope("block"):
        c = Causal(Normed(L.Conv1D(4, 3, name="causal_conv")))(x)
        n = Normed(L.Conv1D(4, 1, kernel_regularizer=_l2(tf, 0.1)))(c)
    d = Doubled(L.Dense(3, kernel_regularizer=_l2(tf, 0.2)))(n)
    return {"c": c, "n": n, "d": d}, {x: data}, [x]


MODELS = {
    f.__name__: f
    for f in (
        mlp,
        convnet_train,
        convnet_infer,
        convnet_bool_tensor,
        batchnorm_variants,
        batchnorm_5d,
        batchnorm_renorm,
        batchnorm_renorm_switch,
        batchnorm_ghost,
        dropout_training,
        reuse_twice,
        unnamed_in_scope,
        conv_family,
        channels_first,
        conv1d_family,
        conv3d_family,
        wrapped_layers,
    )
}


def fixed_value(name, shape):
    """Weights from the variable's name, so both sides get the same numbers."""
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    if "moving_variance" in name or "stddev" in name:
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    return rng.uniform(-0.5, 0.5, shape).astype(np.float32)


def describe(tf, graph):
    """Names, shapes and collections of a graph, as JSON-ready lists."""
    v1 = tf.compat.v1
    keys = v1.GraphKeys
    with graph.as_default():
        return {
            "variables": [
                [v.name, v.shape.as_list(), v.dtype.base_dtype.name, type(v).__name__]
                for v in v1.global_variables()
            ],
            "trainable": [v.name for v in v1.trainable_variables()],
            "update_ops": [op.name for op in v1.get_collection(keys.UPDATE_OPS)],
            "regularization_losses": [
                t.name for t in v1.get_collection(keys.REGULARIZATION_LOSSES)
            ],
        }


def measure(tf, L, name, weights=None, restore=None, save_to=None, models=None):
    """Build model ``name`` of ``models`` (default: this module's) with layers
    ``L``; return (description, arrays).

    Variables get ``weights`` (name -> value; default ``fixed_value``) or the
    values in checkpoint ``restore``; ``save_to`` writes them as a checkpoint
    before anything runs."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        fetches, feed, inputs = (models or MODELS)[name](tf, L)
        variables = v1.global_variables()
        outs = sorted(fetches)
        total = tf.add_n(
            [tf.reduce_sum(fetches[k] * _cotangent(tf, fetches[k], i)) for i, k in enumerate(outs)]
        )
        trainable = v1.trainable_variables()
        zero = tf.UnconnectedGradients.ZERO
        grads = tf.gradients(total, trainable + inputs, unconnected_gradients=zero)
        reg = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS)
        saver = v1.train.Saver(variables) if variables else None
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            if restore:
                saver.restore(sess, restore)
            else:
                weights = weights or {
                    v.name: fixed_value(v.name, v.shape.as_list()) for v in variables
                }
                for v in variables:
                    v.load(weights[v.name], sess)
            if save_to:
                saver.save(sess, save_to, write_meta_graph=False, write_state=False)
            arrays = {"w/" + v.name: sess.run(v) for v in variables}
            values = sess.run([fetches[k] for k in outs] + grads + reg, feed)
            for update in updates:  # one at a time: two on one variable would race
                sess.run(update, feed)
            after = {"after/" + v.name: sess.run(v) for v in variables}
    # Only what the updates changed: a variable changed on one side only shows
    # up as a key on that side.
    arrays.update({k: v for k, v in after.items() if not np.array_equal(v, arrays["w" + k[5:]])})
    names = [f"out/{k}" for k in outs]
    names += [f"grad/{v.name}" for v in trainable] + [f"grad/input{i}" for i in range(len(inputs))]
    names += [f"reg/{t.name}" for t in reg]
    arrays.update(dict(zip(names, values)))
    return describe(tf, graph), arrays


def _cotangent(tf, tensor, index):
    shape = tensor.shape.as_list()
    rng = np.random.RandomState(100 + index)
    return tf.constant(rng.uniform(-1, 1, shape).astype(np.float32))
