"""A TF 1.x multi-GPU program that counts its GPUs before building its
towers, as many did: ``device_lib.list_local_devices()`` (the
``get_available_gpus()`` helper of countless repositories),
``tf.test.is_gpu_available()``, and TF 1.14's
``tf.config.experimental.list_physical_devices('GPU')`` with memory growth
set on each. One tower per GPU found, the variables on the CPU, the towers'
gradients averaged; with no GPU, one tower on the CPU. Written for
tf1_train's tests; ``import tensorflow as tf`` as on TF 1.x, so it runs
through ``python -m tf1_train.compat --v1`` (``--gpus_as_cpus=N``: N towers).
"""

import numpy as np
import tensorflow as tf
from tensorflow.python.client import device_lib


def get_available_gpus():
    local_device_protos = device_lib.list_local_devices()
    return [x.name for x in local_device_protos if x.device_type == "GPU"]


gpus = get_available_gpus()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
physical = tf.config.experimental.list_physical_devices("GPU")
assert tf.test.is_gpu_available() == bool(gpus) == bool(physical)
towers = gpus or ["/cpu:0"]
print(f"num_gpus = {len(gpus)}")
print(f"gpu_device_name = {tf.test.gpu_device_name() or 'none'}")

rng = np.random.RandomState(0)
features = rng.randn(64, 3).astype(np.float32)
targets = features @ np.array([[2.0], [-1.0], [0.5]], np.float32)
x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 1])
optimizer = tf.train.GradientDescentOptimizer(0.1)
tower_grads, losses = [], []
per_tower = 64 // len(towers)
for i, device in enumerate(towers):
    with tf.device(device), tf.name_scope(f"tower_{i}"):
        with tf.variable_scope("model", reuse=i > 0), tf.device("/cpu:0"):
            w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        part = slice(i * per_tower, (i + 1) * per_tower)
        loss = tf.reduce_mean(tf.square(tf.matmul(x[part], w) - y[part]))
        losses.append(loss)
        tower_grads.append(optimizer.compute_gradients(loss))
grads = [
    (tf.reduce_mean(tf.stack([g for g, _ in pairs]), 0), pairs[0][1]) for pairs in zip(*tower_grads)
]
train_op = optimizer.apply_gradients(grads)
mean_loss = tf.add_n(losses) / len(towers)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    metadata = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    sess.run(train_op, {x: features, y: targets}, options=options, run_metadata=metadata)
    for _ in range(5):
        last = sess.run([train_op, mean_loss], {x: features, y: targets})[1]
ran = sorted({d.device.rsplit("/", 1)[-1] for d in metadata.step_stats.dev_stats})
print("devices = " + ",".join(ran))
print(f"last_loss = {last:.6f}")
