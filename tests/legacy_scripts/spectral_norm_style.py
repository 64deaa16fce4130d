"""A legacy TF1 GAN discriminator with spectral norm, as taki0112's
Self-Attention-GAN, BigGAN and SNGAN ports wrote it and hundreds of GAN code
bases copied it: each layer keeps the power iteration's vector ``u`` in a
non-trainable variable, reads it, and assigns the new estimate under
``tf.control_dependencies`` before dividing the kernel by its largest
singular value. The discriminator is built twice, on real and on fake
images, so each ``u`` is read and assigned twice in every run. Not changed
for TensorFlow 2: tests run it through ``python -m tf1_train.compat --v1``,
with and without ``--v1_variables``.

Prints ``d_losses`` (the discriminator loss at each of 4 steps) and
``u_sum`` (the sum of every ``u`` at the end), to 6 decimals.
"""

import numpy as np
import tensorflow as tf

RNG = np.random.RandomState(0)


def spectral_norm(w, iteration=1):
    w_shape = w.shape.as_list()
    w = tf.reshape(w, [-1, w_shape[-1]])
    start = RNG.normal(size=(1, w_shape[-1])).astype(np.float32)
    u = tf.get_variable(
        "u", [1, w_shape[-1]], initializer=tf.constant_initializer(start), trainable=False
    )
    u_hat, v_hat = u, None
    for _ in range(iteration):
        v_hat = tf.nn.l2_normalize(tf.matmul(u_hat, tf.transpose(w)))
        u_hat = tf.nn.l2_normalize(tf.matmul(v_hat, w))
    u_hat, v_hat = tf.stop_gradient(u_hat), tf.stop_gradient(v_hat)
    sigma = tf.matmul(tf.matmul(v_hat, w), tf.transpose(u_hat))
    with tf.control_dependencies([u.assign(u_hat)]):
        w_norm = tf.reshape(w / sigma, w_shape)
    return w_norm


def conv(x, channels, scope):
    with tf.variable_scope(scope):
        shape = [3, 3, x.shape.as_list()[-1], channels]
        start = RNG.normal(scale=0.2, size=shape).astype(np.float32)
        w = tf.get_variable("kernel", shape, initializer=tf.constant_initializer(start))
        return tf.nn.leaky_relu(tf.nn.conv2d(x, spectral_norm(w), [1, 2, 2, 1], "SAME"))


def discriminator(x, reuse=False):
    with tf.variable_scope("discriminator", reuse=reuse):
        x = conv(conv(conv(x, 16, "conv1"), 32, "conv2"), 64, "conv3")
        flat = tf.reshape(x, [-1, 4 * 4 * 64])
        start = RNG.normal(scale=0.05, size=(4 * 4 * 64, 1)).astype(np.float32)
        w = tf.get_variable("logit", [4 * 4 * 64, 1], initializer=tf.constant_initializer(start))
        return tf.matmul(flat, spectral_norm(w))


def main():
    real = tf.placeholder(tf.float32, [16, 32, 32, 3])
    fake = tf.placeholder(tf.float32, [16, 32, 32, 3])
    real_logit = discriminator(real)
    fake_logit = discriminator(fake, reuse=True)
    d_loss = tf.reduce_mean(tf.nn.relu(1.0 - real_logit)) + tf.reduce_mean(
        tf.nn.relu(1.0 + fake_logit)
    )
    d_vars = [v for v in tf.trainable_variables() if "discriminator" in v.name]
    d_optim = tf.train.AdamOptimizer(4e-4, beta1=0.0, beta2=0.9).minimize(d_loss, var_list=d_vars)
    data = np.random.RandomState(1)
    feed = {
        real: data.uniform(-1, 1, (16, 32, 32, 3)).astype(np.float32),
        fake: data.normal(0, 0.5, (16, 32, 32, 3)).astype(np.float32),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(4):
            _, loss = sess.run([d_optim, d_loss], feed)
            losses.append(loss)
        us = [v for v in tf.global_variables() if v.name.endswith("/u:0")]
        print("d_losses = " + " ".join(f"{x:.6f}" for x in losses))
        print(f"u_sum = {sum(float(np.sum(sess.run(u))) for u in us):.6f}")


if __name__ == "__main__":
    main()
