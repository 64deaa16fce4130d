"""A character-to-frames regressor written the way Tacotron's TF 1.x code
bases were (keithito/tacotron's models/modules.py and its forks, 2017-2019):
a prenet of dense + dropout layers, a CBHG encoder (a bank of
``tf.layers.conv1d`` of widths 1..K with batch normalization,
``tf.layers.max_pooling1d`` with stride 1, two projections, a residual,
highway layers, a bidirectional GRU from ``tf.contrib.rnn``), trained with
Adam under a learning-rate decay.

Run as a TF 1.x program: ``python -m tf1_train.compat --v1 cbhg_style.py``.
Prints ``loss <step> <value>`` per step and ``variables <n>``.
"""

import numpy as np
import tensorflow as tf
from tensorflow.contrib.rnn import GRUCell

BATCH, STEPS_IN, SYMBOLS, FRAMES, STEPS = 4, 12, 10, 6, 25


def prenet(inputs, is_training, sizes=(32, 16), scope=None):
    drop_rate = 0.5 if is_training else 0.0
    with tf.variable_scope(scope or "prenet"):
        x = inputs
        for i, size in enumerate(sizes):
            x = tf.layers.dense(x, units=size, activation=tf.nn.relu, name=f"dense_{i + 1}")
            x = tf.layers.dropout(x, rate=drop_rate, training=is_training)
    return x


def conv1d(inputs, kernel_size, channels, activation, is_training, scope):
    with tf.variable_scope(scope):
        conv = tf.layers.conv1d(
            inputs, filters=channels, kernel_size=kernel_size, activation=activation, padding="same"
        )
        return tf.layers.batch_normalization(conv, training=is_training)


def highwaynet(inputs, scope, depth):
    with tf.variable_scope(scope):
        h = tf.layers.dense(inputs, units=depth, activation=tf.nn.relu, name="H")
        t = tf.layers.dense(
            inputs,
            units=depth,
            activation=tf.nn.sigmoid,
            name="T",
            bias_initializer=tf.constant_initializer(-1.0),
        )
        return h * t + inputs * (1.0 - t)


def cbhg(inputs, input_lengths, is_training, scope, K=4, projections=(16, 16), depth=16):
    with tf.variable_scope(scope):
        with tf.variable_scope("conv_bank"):
            bank = tf.concat(
                [
                    conv1d(inputs, k, 8, tf.nn.relu, is_training, f"conv1d_{k}")
                    for k in range(1, K + 1)
                ],
                axis=-1,
            )
        pooled = tf.layers.max_pooling1d(bank, pool_size=2, strides=1, padding="same")
        proj1 = conv1d(pooled, 3, projections[0], tf.nn.relu, is_training, "proj_1")
        proj2 = conv1d(proj1, 3, projections[1], None, is_training, "proj_2")
        highway_input = proj2 + inputs
        if highway_input.shape[2] != depth:
            highway_input = tf.layers.dense(highway_input, depth)
        for i in range(2):
            highway_input = highwaynet(highway_input, f"highway_{i + 1}", depth)
        outputs, _ = tf.nn.bidirectional_dynamic_rnn(
            GRUCell(depth // 2),
            GRUCell(depth // 2),
            highway_input,
            sequence_length=input_lengths,
            dtype=tf.float32,
        )
        return tf.concat(outputs, axis=2)


def main():
    rng = np.random.RandomState(0)
    ids = rng.randint(1, SYMBOLS, [BATCH, STEPS_IN]).astype(np.int32)
    lengths = np.full([BATCH], STEPS_IN, np.int32)
    targets = np.sin(np.cumsum(ids, axis=1)[..., None] * np.arange(1, FRAMES + 1) / 7.0)
    tf.set_random_seed(1)
    inputs = tf.placeholder(tf.int32, [None, None], "inputs")
    input_lengths = tf.placeholder(tf.int32, [None], "input_lengths")
    frames = tf.placeholder(tf.float32, [None, None, FRAMES], "targets")
    with tf.variable_scope("model"):
        table = tf.get_variable(
            "embedding", [SYMBOLS, 16], initializer=tf.truncated_normal_initializer(stddev=0.5)
        )
        embedded = tf.nn.embedding_lookup(table, inputs)
        encoded = cbhg(prenet(embedded, True), input_lengths, True, "encoder_cbhg")
        outputs = tf.layers.dense(encoded, FRAMES)
    loss = tf.reduce_mean(tf.abs(frames - outputs))
    global_step = tf.Variable(0, name="global_step", trainable=False)
    rate = tf.train.exponential_decay(0.01, global_step, 10, 0.9)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.AdamOptimizer(rate).minimize(loss, global_step=global_step)
    feed = {inputs: ids, input_lengths: lengths, frames: targets}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(STEPS):
            value, _ = sess.run([loss, train], feed)
            print(f"loss {step} {value:.6f}")
    print(f"variables {len(tf.global_variables())}")


if __name__ == "__main__":
    main()
