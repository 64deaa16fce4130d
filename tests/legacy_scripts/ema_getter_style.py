"""A TF 1.x semi-supervised-style trainer in the manner of google-research's
MixMatch/FixMatch code bases: a batch split over the GPUs it finds
(``tf.device(tf.train.replica_device_setter(worker_device=f'/gpu:{i}'))`` per
tower, the outputs concatenated), ``tf.layers`` with batch norm, the
weights' exponential moving average applied after each step, and the
evaluation model built a second time under a custom getter that swaps in
each weight's average: ``ema_var if ema_var else var``. Its images go
through PIL with ``Image.ANTIALIAS``. Written for tf1_train's tests;
``import tensorflow as tf`` as on TF 1.x, so it runs through ``python -m
tf1_train.compat --v1 --gpus_as_cpus=2``.
"""

import functools

import numpy as np
import tensorflow as tf
from PIL import Image
from tensorflow.python.client import device_lib

BATCH, STEPS, SIZE = 16, 60, 16


def get_available_gpus():
    return [d.name for d in device_lib.list_local_devices() if d.device_type == "GPU"]


def para_cat(fn, x):
    gpus = len(get_available_gpus())
    if gpus <= 1:
        return fn(x)
    outputs = []
    for gpu, part in enumerate(tf.split(x, gpus)):
        with tf.name_scope(f"tower{gpu}"):
            setter = tf.train.replica_device_setter(
                worker_device=f"/gpu:{gpu}", ps_device="/cpu:0", ps_tasks=1
            )
            with tf.device(setter):
                outputs.append(fn(part))
    return tf.concat(outputs, axis=0)


def getter_ema(ema, getter, name, *args, **kwargs):
    var = getter(name, *args, **kwargs)
    ema_var = ema.average(var)
    return ema_var if ema_var else var


def classifier(x, training, getter=None):
    with tf.variable_scope("classify", reuse=tf.AUTO_REUSE, custom_getter=getter):
        y = tf.layers.conv2d(x, 8, 3, padding="same", name="conv1")
        y = tf.layers.batch_normalization(y, training=training, name="bn1")
        y = tf.nn.relu(y)
        y = tf.reduce_mean(y, axis=[1, 2])
        return tf.layers.dense(y, 4, name="logits")


def images(rng, labels):
    """Class-coloured squares, shrunk and grown back through PIL."""
    out = []
    for label in labels:
        pixels = rng.randint(0, 64, (SIZE, SIZE, 3)).astype(np.uint8)
        pixels[4:12, 4:12, label % 3] = 200 if label < 3 else 120
        small = Image.fromarray(pixels).resize((SIZE // 2, SIZE // 2), Image.ANTIALIAS)
        out.append(np.asarray(small.resize((SIZE, SIZE), Image.BILINEAR), np.float32) / 255)
    return np.stack(out)


def variables_read(tensor):
    """The variables a tensor's computation reads (either variable kind)."""
    seen, todo, found = set(), [tensor.op], set()
    while todo:
        op = todo.pop()
        if op.name not in seen:
            seen.add(op.name)
            if op.type in ("VarHandleOp", "VariableV2"):
                found.add(op.name)
            todo.extend(t.op for t in op.inputs)
    return found


def main():
    tf.set_random_seed(1)
    rng = np.random.RandomState(0)
    x_in = tf.placeholder(tf.float32, [BATCH, SIZE, SIZE, 3])
    l_in = tf.placeholder(tf.int64, [BATCH])
    skip_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    logits = para_cat(lambda x: classifier(x, training=True), x_in)
    post_ops = [op for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS) if op not in skip_ops]
    loss = tf.losses.sparse_softmax_cross_entropy(l_in, logits)
    ema = tf.train.ExponentialMovingAverage(decay=0.9)
    post_ops.append(ema.apply(tf.trainable_variables()))
    train_op = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    with tf.control_dependencies([train_op]):
        train_op = tf.group(*post_ops)
    ema_getter = functools.partial(getter_ema, ema)
    probs_raw = tf.nn.softmax(classifier(x_in, training=False))
    probs_ema = tf.nn.softmax(classifier(x_in, training=False, getter=ema_getter))
    swap = tf.group(*[tf.assign(v, ema.average(v)) for v in tf.trainable_variables()])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(STEPS):
            labels = rng.randint(0, 4, BATCH)
            feed = {x_in: images(rng, labels), l_in: labels}
            losses.append(sess.run([train_op, loss], feed)[1])
        labels = rng.randint(0, 4, BATCH)
        feed = {x_in: images(rng, labels), l_in: labels}
        raw, averaged = sess.run([probs_raw, probs_ema], feed)
        sess.run(swap)
        swapped = sess.run(probs_raw, feed)
    read = variables_read(probs_ema)
    averages = [name for name in read if name.endswith("ExponentialMovingAverage")]
    trained = {v.op.name for v in tf.trainable_variables()}
    print(f"towers = {max(1, len(get_available_gpus()))}")
    print(f"first_loss = {losses[0]:.6f}")
    print(f"last_loss = {np.mean(losses[-5:]):.6f}")
    print(f"ema_variables_read = {len(averages)} of {len(trained)}")
    print(f"raw_weights_read = {len(trained & read)}")
    print(f"ema_equals_swapped = {np.array_equal(averaged, swapped)}")
    print(f"raw_differs = {not np.array_equal(raw, averaged)}")
    print(f"ema_accuracy = {np.mean(averaged.argmax(1) == labels):.4f}")


if __name__ == "__main__":
    main()
