"""A TF 1.x eager-execution program in the manner of the eager examples of
2018 (TensorFlow-Examples' eager regressions and their copies): ``tfe =
tf.contrib.eager``, ``tfe.enable_eager_execution()`` at the top,
``tfe.Variable`` weights, a ``tf.data`` dataset read through
``tfe.Iterator``, ``tfe.implicit_gradients`` /
``tfe.implicit_value_and_gradients`` and a ``tf.train`` optimizer's
``apply_gradients``, a ``tfe.Checkpoint`` saved and restored. Written for
tf1_train's tests; ``import tensorflow as tf`` as on TF 1.x, so it runs
through ``python -m tf1_train.compat --v1`` (which starts in graph mode, as
the call at the top turns eager execution on again).

python eager_regression_style.py CHECKPOINT_DIR
"""

import os
import sys

import numpy as np
import tensorflow as tf
import tensorflow.contrib.eager as tfe

tfe.enable_eager_execution()

rng = np.random.RandomState(0)
features = rng.normal(size=(512, 8)).astype(np.float32)
labels = (features @ rng.normal(size=8) > 0).astype(np.int64)
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(64).repeat()
dataset_iter = tfe.Iterator(dataset)

W = tfe.Variable(tf.zeros([8, 2]), name="weights")
b = tfe.Variable(tf.zeros([2]), name="bias")


def loss_fn(inputs, targets):
    logits = tf.matmul(inputs, W) + b
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, labels=targets)
    )


def accuracy_fn(inputs, targets):
    predicted = tf.argmax(tf.matmul(inputs, W) + b, 1)
    return tf.reduce_mean(tf.cast(tf.equal(predicted, targets), tf.float32))


optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5)
grad = tfe.implicit_gradients(loss_fn)
value_and_grad = tfe.implicit_value_and_gradients(loss_fn)
first = float(loss_fn(features, labels))
for step in range(100):
    x, y = dataset_iter.next()
    if step % 2:
        optimizer.apply_gradients(grad(x, y))
    else:
        _, grads = value_and_grad(x, y)
        optimizer.apply_gradients(grads)
print(f"executing_eagerly = {tfe.executing_eagerly()}")
print(f"first_loss = {first:.4f}")
print(f"last_loss = {float(loss_fn(features, labels)):.4f}")
print(f"accuracy = {float(accuracy_fn(features, labels)):.4f}")
checkpoint = tfe.Checkpoint(W=W, b=b)
path = checkpoint.save(os.path.join(sys.argv[1], "ckpt"))
trained = W.numpy()
W.assign(tf.zeros([8, 2]))
checkpoint.restore(path)
print(f"restored = {bool(np.array_equal(W.numpy(), trained))}")
