"""TF 1.x's image_retraining/retrain.py (TensorFlow for Poets and its copies), in
the two private names TensorFlow 2.21 dropped: a random distortion's scale drawn
with the shape ``tensor_shape.scalar()``, and the trained graph frozen with
``graph_util.convert_variables_to_constants`` for label_image. Run as written on
TensorFlow 1.15.5 it printed ``ops = Const Const Identity Identity Mul`` and the
same two numbers twice (tests/test_compat_frozen_graph.py).
"""

import tensorflow as tf
from tensorflow.python.framework import graph_util, tensor_shape

scale = tf.random_uniform(tensor_shape.scalar(), minval=1.0, maxval=2.0, seed=3)
shape = tensor_shape.matrix(2, 3).concatenate(tensor_shape.vector(4))
weights = tf.Variable(3.0, name="final_weights")
result = tf.identity(weights * 2.0, name="final_result")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    frozen = graph_util.convert_variables_to_constants(
        sess, sess.graph.as_graph_def(), ["final_result"]
    )
    print("shapes =", scale.shape, shape)
    print("ops =", " ".join(sorted(n.op for n in frozen.node)))
    print("live =", sess.run(result))
with tf.Graph().as_default() as graph:
    (loaded,) = tf.import_graph_def(frozen, return_elements=["final_result:0"])
    with tf.Session(graph=graph) as sess:
        print("frozen =", sess.run(loaded))
