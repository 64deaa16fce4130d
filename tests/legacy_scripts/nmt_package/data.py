"""The input pipeline, as the NMT tutorial's iterator_utils built its own:
``tf.contrib.data.shuffle_and_repeat``, then sequences bucketed by length
with ``tf.contrib.data.group_by_window`` and padded per bucket."""

import numpy as np
import tensorflow.compat.v1 as tf

PAD, VOCAB, MAX_LEN = 0, 12, 12


def examples(rng, count):
    """Token sequences of 2..MAX_LEN tokens; the label: whether the first
    token is larger than the last."""
    lengths = rng.randint(2, MAX_LEN + 1, count).astype(np.int32)
    tokens = np.full((count, MAX_LEN), PAD, np.int32)
    labels = np.zeros(count, np.int32)
    for i, n in enumerate(lengths):
        tokens[i, :n] = rng.randint(1, VOCAB, n)
        labels[i] = int(tokens[i, 0] > tokens[i, n - 1])
    return tokens, lengths, labels


def batched(tokens, lengths, labels, batch_size, bucket_width, seed):
    dataset = tf.data.Dataset.from_tensor_slices((tokens, lengths, labels))
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(1000, seed=seed))
    dataset = dataset.map(lambda t, n, y: (t[:n], n, y))  # each sequence at its own length

    def batch_bucket(unused_key, window):
        return window.padded_batch(batch_size, ([None], [], []), (PAD, 0, 0))

    bucketing = tf.contrib.data.group_by_window(
        key_func=lambda t, n, y: tf.cast(n // bucket_width, tf.int64),
        reduce_func=batch_bucket,
        window_size=batch_size,
    )
    return tf.data.make_one_shot_iterator(dataset.apply(bucketing)).get_next()
