"""A legacy replicated multi-GPU trainer in the manner of NVIDIA's StyleGAN
``tflib`` (StyleGAN, Progressive GAN): every GPU holds its own copy of the
network's variables, each copy's gradients are summed over the GPUs with
NCCL (``nccl_ops.all_sum``) and applied on every GPU by its own optimizer, so
the copies stay equal. Around it, the lines of that code base that TensorFlow
2.21 broke:

- the optimizer class looked up by name through ``importlib``
  (``"tf.train.AdamOptimizer"``);
- ``assert isinstance(var, tf.Variable)`` before every assignment;
- a prefetch buffer sized with NumPy arithmetic (an ``np.int64``);
- a variable shaped ``[1, use_noise, n]`` with ``use_noise=True``;
- ``tf.contrib.memory_stats.MaxBytesInUse()`` on ``/gpu:0``;
- a custom-scalars layout from ``tensorboard.summary.custom_scalar_pb``.

Not changed for TensorFlow 2: tests run it through ``python -m
tf1_train.compat --v1 --gpus_as_cpus=2``. Arguments: the data file (``x``,
``y`` arrays), the log directory, the number of GPUs. Prints ``loss_<step>``,
``replica_gap`` (the largest difference between two GPUs' copies of a weight),
``peak_bytes`` and ``layout_summary`` (the layout's summary tag).
"""

import importlib
import sys

import numpy as np
import tensorflow as tf
from tensorboard import summary as summary_lib
from tensorboard.plugins.custom_scalar import layout_pb2

try:
    from tensorflow.python.ops import nccl_ops
except ImportError:
    import tensorflow.contrib.nccl as nccl_ops

STEPS, BATCH, HIDDEN = 12, 32, 16


def get_obj_by_name(name):
    module_name, attr = name.replace("tf.", "tensorflow.", 1).rsplit(".", 1)
    return getattr(importlib.import_module(module_name), attr)


def set_vars(session, values):
    for var, value in values.items():
        assert isinstance(var, tf.Variable)
        setter = tf.assign(var, tf.placeholder(var.dtype, var.shape))
        session.run(setter, {setter.op.inputs[1]: value})


def network(x, name, use_noise=True):
    rng = np.random.RandomState(7)
    with tf.variable_scope(name):
        w1 = tf.get_variable("w1", initializer=rng.normal(0, 0.1, (64, HIDDEN)).astype(np.float32))
        b1 = tf.get_variable("b1", [HIDDEN], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", initializer=rng.normal(0, 0.1, (HIDDEN, 10)).astype(np.float32))
        zeros = tf.zeros_initializer()
        noise = tf.get_variable("noise", [1, use_noise, 10], trainable=False, initializer=zeros)
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + noise[:, 0, :]
    return logits, [w1, b1, w2], noise


def main(data_file, log_dir, num_gpus):
    data = np.load(data_file)
    images, labels = data["x"].astype(np.float32), data["y"].astype(np.int64)
    bytes_per_item = np.prod(images.shape[1:]) * np.dtype(np.float32).itemsize
    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).repeat()
    dataset = dataset.prefetch(((1 << 20) - 1) // bytes_per_item + 1).batch(BATCH)
    x_all, y_all = dataset.make_one_shot_iterator().get_next()
    optimizer_class = get_obj_by_name("tf.train.AdamOptimizer")
    towers, losses = [], []
    for gpu, (x, y) in enumerate(zip(tf.split(x_all, num_gpus), tf.split(y_all, num_gpus))):
        with tf.name_scope(f"GPU{gpu}"), tf.device(f"/gpu:{gpu}"):
            logits, trainables, noise = network(x, "G" if gpu == 0 else f"G_shadow{gpu}")
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
            opt = optimizer_class(learning_rate=0.01, name=f"Adam{gpu}")
            grads = opt.compute_gradients(loss, trainables)
            towers.append((tf.device(f"/gpu:{gpu}"), opt, grads, noise))
            losses.append(loss)
    sums = [[g for g, _ in t[2]] for t in towers]
    if num_gpus > 1:
        with tf.name_scope("SumAcrossGPUs"):
            sums = list(zip(*[nccl_ops.all_sum(list(g)) for g in zip(*sums)]))
    updates = []
    for (device, opt, grads, _), summed in zip(towers, sums):
        with device:
            scaled = [(g * (1.0 / num_gpus), v) for g, (_, v) in zip(summed, grads)]
            updates.append(opt.apply_gradients(scaled))
    with tf.device("/gpu:0"):
        peak = tf.contrib.memory_stats.MaxBytesInUse()
    chart = layout_pb2.Chart(
        title="train", multiline=layout_pb2.MultilineChartContent(tag=["loss"])
    )
    category = layout_pb2.Category(title="Loss", chart=[chart])
    layout = summary_lib.custom_scalar_pb(layout_pb2.Layout(category=[category]))
    writer = tf.summary.FileWriter(log_dir)
    writer.add_summary(layout)
    mean_loss = tf.add_n(losses) / num_gpus
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        set_vars(sess, {t[3]: np.zeros([1, 1, 10], np.float32) for t in towers})
        for step in range(STEPS):
            value, _ = sess.run([mean_loss, updates])
            print(f"loss_{step} = {value:.9g}")
        copies = [[sess.run(v) for _, v in t[2]] for t in towers]
        gaps = [float(np.abs(a - b).max()) for c in copies[1:] for a, b in zip(copies[0], c)]
        print(f"replica_gap = {max(gaps + [0.0])!r}")
        print(f"peak_bytes = {sess.run(peak)}")
    writer.close()
    print(f"layout_summary = {layout.value[0].tag}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
