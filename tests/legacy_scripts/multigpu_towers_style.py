"""A TF 1.x multi-GPU program in the manner of the multi-GPU examples of
2017-18 (TensorFlow-Examples' multigpu_cnn.py and its copies): MNIST from
``input_data``, one tower per GPU under ``tf.device(assign_to_device('/gpu:i',
ps_device='/cpu:0'))`` sharing the variables by ``reuse``, each tower's slice
of the batch, the towers' gradients averaged, Adam. Written for tf1_train's
tests, not taken from those examples; ``import tensorflow as tf`` as on TF
1.x, so it runs through ``python -m tf1_train.compat --v1``, and on a machine
without GPUs only with ``--gpus_as_cpus``.

python multigpu_towers_style.py DATA_DIR
"""

import sys

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

num_gpus = 2
num_steps = 120
batch_size = 32
learning_rate = 0.002
mnist = input_data.read_data_sets(sys.argv[1], one_hot=True, validation_size=0, seed=3)

# Resource variables are 'VarHandleOp' on TensorFlow 2 (the examples listed
# only the first three: their variables stayed on the first GPU).
PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp"]


def assign_to_device(device, ps_device="/cpu:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        if node_def.op in PS_OPS:
            return "/" + ps_device
        return device

    return _assign


def conv_net(x, reuse):
    with tf.variable_scope("ConvNet", reuse=reuse):
        x = tf.reshape(x, shape=[-1, 28, 28, 1])
        x = tf.layers.conv2d(x, 16, 5, activation=tf.nn.relu)
        x = tf.layers.max_pooling2d(x, 2, 2)
        x = tf.layers.flatten(x)
        x = tf.layers.dense(x, 64, activation=tf.nn.relu)
        return tf.layers.dense(x, 10)


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


tf.set_random_seed(1)
with tf.device("/cpu:0"):
    tower_grads, losses = [], []
    X = tf.placeholder(tf.float32, [None, 784])
    Y = tf.placeholder(tf.float32, [None, 10])
    optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
    for i in range(num_gpus):
        with tf.device(assign_to_device(f"/gpu:{i}", ps_device="/cpu:0")):
            with tf.name_scope(f"tower_{i}"):
                _x = X[i * batch_size : (i + 1) * batch_size]
                _y = Y[i * batch_size : (i + 1) * batch_size]
                logits = conv_net(_x, reuse=i > 0)
                loss_op = tf.reduce_mean(
                    tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=_y)
                )
                losses.append(loss_op)
                if i == 0:
                    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(_y, 1))
                    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
                tower_grads.append(optimizer.compute_gradients(loss_op))
    train_op = optimizer.apply_gradients(average_gradients(tower_grads))
    loss = tf.add_n(losses) / num_gpus
    init = tf.global_variables_initializer()

    with tf.Session() as sess:
        sess.run(init)
        for step in range(1, num_steps + 1):
            batch_x, batch_y = mnist.train.next_batch(batch_size * num_gpus)
            feed = {X: batch_x, Y: batch_y}
            if step == 1:
                metadata = tf.RunMetadata()
                options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                first, _ = sess.run([loss, train_op], feed, options=options, run_metadata=metadata)
                ran_on = sorted(
                    {d.device.rsplit("/", 1)[-1] for d in metadata.step_stats.dev_stats}
                )
                print(f"first_loss = {first:.4f}")
                print("devices = " + ",".join(ran_on))
            else:
                last, _ = sess.run([loss, train_op], feed)
        print(f"last_loss = {last:.4f}")
        accs = [
            sess.run(
                accuracy,
                {
                    X: mnist.test.images[i : i + batch_size],
                    Y: mnist.test.labels[i : i + batch_size],
                },
            )
            for i in range(0, len(mnist.test.images) - batch_size + 1, batch_size)
        ]
        print(f"test_accuracy = {sum(accs) / len(accs):.4f}")
        graph = tf.get_default_graph()
        print("variables_on = " + ",".join(sorted({v.device for v in tf.global_variables()})))
        print(
            "tower_1_ops_on = "
            + ",".join(
                sorted(
                    {op.device for op in graph.get_operations() if op.name.startswith("tower_1/")}
                )
            )
        )
