"""A legacy TF1 training program, written the way the TF1 tutorials wrote them:
tf.app flags, tf.layers, tf.train.MomentumOptimizer, the UPDATE_OPS control
dependency and a Saver. It is not changed for Keras 3: tests run it through
``python -m tf1_train.compat`` and check that it trains.

Prints ``first_loss``, ``last_loss``, ``accuracy``, the largest change of each
batch-norm moving statistic, and the module the layers came from.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer("steps", 60, "Training steps.")
tf.app.flags.DEFINE_integer("batch_size", 32, "Examples per step.")
tf.app.flags.DEFINE_string("train_dir", "", "Where the checkpoint goes (none if empty).")


def synthetic_batch(rng, batch_size):
    """Two classes of 8x8 images: a bright top half or a bright bottom half."""
    labels = rng.randint(0, 2, batch_size)
    images = rng.normal(0.0, 0.5, (batch_size, 8, 8, 1)).astype(np.float32)
    images[labels == 0, :4] += 1.0
    images[labels == 1, 4:] += 1.0
    return images, labels.astype(np.int64)


def inference(images, is_training):
    net = tf.layers.conv2d(images, 8, 3, padding="same", activation=tf.nn.relu, name="conv1")
    net = tf.layers.batch_normalization(net, training=is_training, name="bn1")
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.conv2d(net, 16, 3, padding="same")
    net = tf.layers.batch_normalization(net, training=is_training, fused=False)
    net = tf.nn.relu(net)
    net = tf.layers.flatten(net)
    regularizer = lambda w: 1e-4 * tf.nn.l2_loss(w)  # noqa: E731 (tutorial style)
    net = tf.layers.dense(net, 32, activation=tf.nn.relu, kernel_regularizer=regularizer)
    net = tf.layers.dropout(net, rate=0.3, training=is_training)
    return tf.layers.dense(net, 2, name="logits")


def main(_):
    tf.set_random_seed(0)
    images = tf.placeholder(tf.float32, [None, 8, 8, 1])
    labels = tf.placeholder(tf.int64, [None])
    is_training = tf.placeholder_with_default(True, [], name="is_training")
    logits = inference(images, is_training)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    total_loss = loss + tf.add_n(tf.losses.get_regularization_losses())
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    global_step = tf.train.get_or_create_global_step()
    optimizer = tf.train.MomentumOptimizer(0.05, momentum=0.9)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(total_loss, global_step=global_step)
    stats = [v for v in tf.global_variables() if "moving_" in v.name]
    saver = tf.train.Saver()
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(stats)
        losses = []
        for _ in range(FLAGS.steps):
            x, y = synthetic_batch(rng, FLAGS.batch_size)
            losses.append(sess.run([train_op, loss], {images: x, labels: y})[1])
        after = sess.run(stats)
        x, y = synthetic_batch(rng, 256)
        acc = sess.run(accuracy, {images: x, labels: y, is_training: False})
        if FLAGS.train_dir:
            saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"), global_step=global_step)
    print(f"layers_module={tf.layers.dense.__module__}")
    print(f"update_ops={len(update_ops)}")
    print(f"first_loss={np.mean(losses[:5]):.4f}")
    print(f"last_loss={np.mean(losses[-5:]):.4f}")
    print(f"accuracy={acc:.4f}")
    for var, b, a in zip(stats, before, after):
        print(f"moved {var.op.name}={np.max(np.abs(a - b)):.6f}")


if __name__ == "__main__":
    tf.app.run(main)
