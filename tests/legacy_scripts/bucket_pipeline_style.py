# ruff: noqa
"""A TF 1.x text-to-spectrogram input pipeline in the manner of Kyubyong's
Tacotron (data_load.get_batch): texts as int32 bytes through
slice_input_producer and decode_raw, spectrograms made in Python by py_func,
then tf.contrib.training.bucket_by_sequence_length with dynamic_pad and 16
enqueue threads; a small model trains on the batches in a Session loop.
Written for TF 1.x (``import tensorflow as tf`` is the v1 API); run it with
``python -m tf1_train.compat --v1``. Ours, not Kyubyong's code.
"""

import numpy as np
import tensorflow as tf

VOCAB = 12
N_MELS = 8
BATCH = 4
rng = np.random.RandomState(0)
lengths = rng.randint(3, 30, size=64)
texts = [rng.randint(1, VOCAB, size=n).astype(np.int32).tobytes() for n in lengths]


def _spectrogram(text_bytes):
    text = np.frombuffer(text_bytes, np.int32)
    frames = 2 * len(text)  # the "audio" is twice the text's length
    mel = np.repeat(np.eye(VOCAB, N_MELS, dtype=np.float32)[text], 2, axis=0)
    return mel[:frames]


BOUNDARIES = [i for i in range(int(lengths.min()) + 1, int(lengths.max()) - 1, 8)]


def get_batch():
    with tf.device("/cpu:0"):
        text_lengths = tf.convert_to_tensor(lengths.astype(np.int32))
        text_bytes = tf.convert_to_tensor(texts)
        text_length, raw = tf.train.slice_input_producer([text_lengths, text_bytes], shuffle=True)
        text = tf.decode_raw(raw, tf.int32)
        mel = tf.py_func(_spectrogram, [raw], tf.float32)
        text.set_shape((None,))
        mel.set_shape((None, N_MELS))
        _, (texts_b, mels_b) = tf.contrib.training.bucket_by_sequence_length(
            input_length=text_length,
            tensors=[text, mel],
            batch_size=BATCH,
            bucket_boundaries=BOUNDARIES,
            num_threads=16,
            capacity=BATCH * 4,
            dynamic_pad=True,
        )
    return texts_b, mels_b


texts_b, mels_b = get_batch()
embedding = tf.get_variable("embedding", [VOCAB, N_MELS])
predicted = tf.gather(embedding, texts_b)  # (N, Tx, n_mels)
predicted = tf.reshape(tf.tile(predicted, [1, 1, 2]), [tf.shape(predicted)[0], -1, N_MELS])
loss = tf.reduce_mean(tf.abs(predicted - mels_b))
train_op = tf.train.AdamOptimizer(0.05).minimize(loss)

print("boundaries", " ".join(map(str, BOUNDARIES)))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    for step in range(40):
        _, value, t, m = sess.run([train_op, loss, texts_b, mels_b])
        nonzero = (t > 0).sum(axis=1)
        assert m.shape[1] == 2 * t.shape[1] and t.shape[1] == nonzero.max(), (t.shape, m.shape)
        print("batch", step, " ".join(str(n) for n in nonzero))
        print("loss", step, "%.4f" % value)
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)
print("done")
