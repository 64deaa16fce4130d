"""A TF 1.x input pipeline as Kyubyong's transformer (train.py) builds it:
``tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes)``
re-initialized per dataset, a dataset's ``output_classes``, and its
``make_one_shot_iterator()``/``make_initializable_iterator()`` methods.
Not changed for TensorFlow 2: tests run it through ``python -m
tf1_train.compat`` (TF 2's tf.data: AttributeError) and with ``--v1`` (TF
1.x's, as on TF 1.15.5, which printed ``classes = Tensor``, ``structure =
[[1 2]]``, ``one_shot = [[10 20]]`` and ``initializable = [[3 4]]``).
"""

import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2], [3, 4]])).batch(1)
it = tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes)
x = it.get_next()
init = it.make_initializer(ds)
one_shot = ds.map(lambda v: v * 10).make_one_shot_iterator().get_next()
able = ds.skip(1).make_initializable_iterator()
print("classes = " + ds.output_classes.__name__)
with tf.compat.v1.Session() as sess:
    sess.run([init, able.initializer])
    print(f"structure = {sess.run(x)}")
    print(f"one_shot = {sess.run(one_shot)}")
    print(f"initializable = {sess.run(able.get_next())}")
