"""A text classifier written the way the TF1 text CNNs of 2016-18
(cnn-text-classification-tf and its many forks) wrote theirs: ``import
tensorflow as tf``, ``learn.preprocessing.VocabularyProcessor`` turning
sentences into padded word ids and saved next to the checkpoint, an
embedding, convolutions of several widths over the words, max-pooling,
dropout; then, as their eval.py did, a fresh graph that restores the
vocabulary and the checkpoint and predicts held-out sentences. Runs through
``python -m tf1_train.compat --v1``. Prints ``first_loss``, ``last_loss``,
``accuracy``, ``vocabulary_size`` and ``restored_vocabulary_size``.
"""

import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

POSITIVE = ["good", "great", "fine", "lovely", "superb", "nice"]
NEGATIVE = ["bad", "awful", "poor", "dull", "terrible", "weak"]
FILLER = ["the", "film", "was", "plot", "acting", "really", "quite", "and", "a", "story"]
MAX_WORDS, EMBED, FILTERS = 12, 16, 8


def sentences(rng, count):
    """Filler words and one sentiment word; label 1 for a positive one."""
    texts, labels = [], []
    for _ in range(count):
        label = rng.randint(2)
        words = list(rng.choice(FILLER, rng.randint(3, 9)))
        words.insert(rng.randint(len(words) + 1), rng.choice(POSITIVE if label else NEGATIVE))
        texts.append(" ".join(words))
        labels.append(label)
    return texts, np.array(labels, np.int64)


def model(ids, vocabulary_size, keep_prob):
    embedding = tf.get_variable("embedding", [vocabulary_size, EMBED])
    x = tf.expand_dims(tf.nn.embedding_lookup(embedding, ids), -1)
    pooled = []
    for width in (2, 3):
        with tf.variable_scope(f"conv-maxpool-{width}"):
            w = tf.get_variable("W", [width, EMBED, 1, FILTERS])
            b = tf.get_variable("b", [FILTERS], initializer=tf.constant_initializer(0.1))
            h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID") + b)
            pooled.append(tf.nn.max_pool(h, [1, MAX_WORDS - width + 1, 1, 1], [1, 1, 1, 1],
                                         "VALID"))  # fmt: skip
    features = tf.nn.dropout(tf.reshape(tf.concat(pooled, 3), [-1, 2 * FILTERS]), keep_prob)
    return tf.layers.dense(features, 2, name="output")


def train(workdir, texts, labels):
    vocab = learn.preprocessing.VocabularyProcessor(MAX_WORDS)
    ids = np.array(list(vocab.fit_transform(texts)))
    vocab.save(os.path.join(workdir, "vocab"))
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.int64, [None, MAX_WORDS], name="input_x")
        y = tf.placeholder(tf.int64, [None], name="input_y")
        keep = tf.placeholder(tf.float32, name="dropout_keep_prob")
        logits = model(x, len(vocab.vocabulary_), keep)
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        loss = tf.reduce_mean(xent)
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = []
            for step in range(60):
                rows = slice(step * 32 % 480, step * 32 % 480 + 32)
                feed = {x: ids[rows], y: labels[rows], keep: 0.5}
                losses.append(sess.run([train_op, loss], feed)[1])
            tf.train.Saver().save(sess, os.path.join(workdir, "model"))
    return losses, len(vocab.vocabulary_)


def predict(workdir, texts):
    """As the text CNNs' eval.py: the vocabulary and the checkpoint restored."""
    vocab = learn.preprocessing.VocabularyProcessor.restore(os.path.join(workdir, "vocab"))
    ids = np.array(list(vocab.transform(texts)))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int64, [None, MAX_WORDS])
        predictions = tf.argmax(model(x, len(vocab.vocabulary_), 1.0), 1)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, os.path.join(workdir, "model"))
            return sess.run(predictions, {x: ids}), len(vocab.vocabulary_)


def main(workdir):
    texts, labels = sentences(np.random.RandomState(0), 512)
    losses, size = train(workdir, texts, labels)
    test_texts, test_labels = sentences(np.random.RandomState(1), 200)
    predicted, restored_size = predict(workdir, test_texts)
    print(f"first_loss = {losses[0]:.4f}")
    print(f"last_loss = {np.mean(losses[-10:]):.4f}")
    print(f"accuracy = {np.mean(predicted == test_labels):.4f}")
    print(f"vocabulary_size = {size}")
    print(f"restored_vocabulary_size = {restored_size}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
