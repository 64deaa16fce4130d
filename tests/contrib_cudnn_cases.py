"""tf.contrib.cudnn_rnn's CPU cells and core_rnn_cell's ``_Linear`` /
``_linear`` over fixed inputs: run on TensorFlow 1.15.5 itself (``python
tests/contrib_cudnn_cases.py``, Python 3.7: no newer syntax here) and on
tf1_train.compat by tests/test_compat_contrib_cudnn.py.

Each trainable variable is loaded with values drawn from its name (so the
weights agree wherever the names do); ``run`` returns every variable's name
and shape, the biases' initial values, the outputs and states of a
``dynamic_rnn`` over each cell (sequence lengths given), the projections,
and the gradients of their summed squares to every variable and the input,
each summed three ways (``checks``).
"""

import zlib

import numpy as np


def value_for(name, shape):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    return rng.uniform(-0.5, 0.5, [int(d) for d in shape]).astype(np.float32)


def checks(a):
    """(sum, weighted sum, sum of squares) of ``a``."""
    a = np.asarray(a, np.float64)
    w = np.random.RandomState(7).uniform(-1, 1, a.size).reshape(a.shape)
    return float(a.sum()), float((a * w).sum()), float((a * a).sum())


def build(tf):
    from tensorflow.contrib.cudnn_rnn.python.ops import cudnn_rnn_ops
    from tensorflow.contrib.rnn.python.ops import core_rnn_cell

    x = tf.constant(np.random.RandomState(0).uniform(-1, 1, (3, 4, 5)).astype(np.float32))
    out = {}
    cells = (
        ("lstm", tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell(6)),
        ("gru", cudnn_rnn_ops.CudnnCompatibleGRUCell(6)),
    )
    for key, cell in cells:
        with tf.variable_scope(key):
            o, s = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 2, 3], dtype=tf.float32)
        out[key + "_out"] = o
        for i, part in enumerate(tf.nest.flatten(s)):
            out[key + "_state" + str(i)] = part
    with tf.variable_scope("linear"):
        lin = core_rnn_cell._Linear([x[:, 0], x[:, 1, :3]], 7, True)
        out["linear"] = lin([x[:, 2], x[:, 3, :3]])
    with tf.variable_scope("linear_nobias"):
        out["linear_nobias"] = core_rnn_cell._Linear(x[:, 0], 4, False)(x[:, 1])
    with tf.variable_scope("linear_fn"):
        out["linear_fn"] = core_rnn_cell._linear([x[:, 0], x[:, 1]], 3, True)
    variables = tf.global_variables()
    loss = tf.add_n([tf.reduce_sum(v * v) for v in out.values()])
    for v, g in zip(variables + [x], tf.gradients(loss, variables + [x])):
        out["grad:" + v.op.name] = g
    return out, variables


def run(tf):
    """{key: checks(value)} and {variable name: shape}, ``tf`` the v1 API."""
    with tf.Graph().as_default():
        outputs, variables = build(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            shapes = {v.op.name: v.shape.as_list() for v in variables}
            biases = [v for v in variables if v.op.name.endswith("bias")]
            sums = {"init:" + v.op.name: checks(sess.run(v)) for v in biases}
            for v in variables:
                v.load(value_for(v.op.name, v.shape), sess)
            values = sess.run(outputs)
    sums.update((key, checks(value)) for key, value in values.items())
    return sums, shapes


if __name__ == "__main__":
    import tensorflow

    sums, shapes = run(tensorflow)  # TF 1.15: the v1 API
    print(shapes)
    for key, three in sorted(sums.items()):
        print("{!r}: ({:.9g}, {:.9g}, {:.9g}),".format(key, *three))
