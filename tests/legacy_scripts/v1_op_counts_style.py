"""Constructions TensorFlow 2 builds in another number of ops than TF 1.15
did (``tf.linspace``, ``tf.eye`` and the ``matrix_diag`` family, ``tf.einsum``,
``tf.zeros`` of a shape holding a tensor, ``parse_single_example``, dropout with
a rate of 0 or a ``noise_shape``), each in a graph of its own under graph seed
1: prints, as JSON, each one's op count and the draw of a ``random_uniform``
built after it, whose op seed counts those ops; with the argument ``values``,
the construction's value in place of the draw. Runs on TF 1.15.5 as written
(tests/goldens/v1_op_counts_tf115.json) and under ``python -m tf1_train.compat``
on TensorFlow 2.
"""

import json
import sys

import numpy as np
import tensorflow as tf

if not hasattr(tf, "Session"):
    tf = tf.compat.v1
    tf.disable_eager_execution()


def _example():
    feature = tf.train.Feature
    return tf.train.Example(
        features=tf.train.Features(
            feature={
                "a": feature(int64_list=tf.train.Int64List(value=[1, 2])),
                "b": feature(float_list=tf.train.FloatList(value=[0.5, 1.5])),
                "input": feature(int64_list=tf.train.Int64List(value=list(range(8)))),
            }
        )
    ).SerializeToString()


EXAMPLE = _example()
CASES = {
    "linspace": lambda: tf.linspace(-10.0, 10.0, 51),
    "lin_space": lambda: (
        tf.lin_space(0.0, 1.0, 5) if hasattr(tf, "lin_space") else tf.linspace(0.0, 1.0, 5)
    ),
    "eye": lambda: tf.eye(4),
    "eye_rect": lambda: tf.eye(3, 5),
    "eye_batch": lambda: tf.eye(2, batch_shape=[3]),
    "eye_tensor": lambda: tf.eye(tf.shape(tf.zeros([3, 3]))[0]),
    "matrix_diag": lambda: tf.matrix_diag(tf.ones([2, 3])),
    "matrix_diag_part": lambda: tf.matrix_diag_part(tf.ones([2, 3, 3])),
    "matrix_set_diag": lambda: tf.matrix_set_diag(tf.ones([2, 3, 3]), tf.zeros([2, 3])),
    "zeros_tensor_dim": lambda: tf.zeros([tf.shape(tf.ones([4, 2]))[0], 16, 3]),
    "ones_tensor_dims": lambda: tf.ones(
        [tf.shape(tf.ones([4, 2]))[0], tf.shape(tf.ones([4, 2]))[1]]
    ),
    "zeros_int": lambda: tf.zeros([4, 16]),
    "einsum_attn": lambda: tf.einsum(
        "ibnd,jbnd->ijbn", tf.ones([4, 2, 2, 8]), tf.ones([5, 2, 2, 8])
    ),
    "einsum_proj": lambda: tf.einsum("ibh,hnd->ibnd", tf.ones([4, 2, 16]), tf.ones([16, 2, 8])),
    "einsum_matmul": lambda: tf.einsum("ij,jk->ik", tf.ones([3, 4]), tf.ones([4, 5])),
    "einsum_trace": lambda: tf.einsum("ii->i", tf.ones([3, 3])),
    "parse_single": lambda: tf.parse_single_example(
        tf.constant(EXAMPLE),
        {
            "a": tf.FixedLenFeature([2], tf.int64),
            "b": tf.VarLenFeature(tf.float32),
            "c": tf.FixedLenFeature([], tf.string, default_value="x"),
        },
    ),
    "parse_single_one": lambda: tf.parse_single_example(
        tf.constant(EXAMPLE), {"input": tf.FixedLenFeature([8], tf.int64)}
    ),
    "layers_dropout_rate0_training": lambda: tf.layers.dropout(tf.ones([4, 3]), 0.0, training=True),
    "layers_dropout_rate0": lambda: tf.layers.dropout(tf.ones([4, 3]), 0.0),
    "layers_dropout_noise": lambda: tf.layers.dropout(
        tf.ones([4, 3]), 0.5, noise_shape=[None, 1], training=True
    ),
    "nn_dropout_rate0": lambda: tf.nn.dropout(tf.ones([4, 3]), rate=0.0),
    "nn_dropout_list_noise": lambda: tf.nn.dropout(tf.ones([4, 3]), 0.5, [4, 1]),
    "nn_dropout_none_noise": lambda: tf.nn.dropout(
        tf.ones([4, 3]), rate=0.5, noise_shape=[None, 1]
    ),
}
out = {}
for name, make in CASES.items():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        before = len(g.get_operations())
        try:
            made = tf.nest.flatten(make(), expand_composites=True)
        except ValueError as e:
            out[name] = ["raises", str(e)[:60]]
            continue
        built = len(g.get_operations()) - before
        draw = tf.random_uniform([3])
        with tf.Session() as s:
            value = s.run(draw).tolist()
            if sys.argv[1:] == ["values"]:
                value = [np.asarray(v).tolist() for v in s.run(made)]
    out[name] = [built, value]
print(json.dumps(out, default=repr))
