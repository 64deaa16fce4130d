"""``tf.contrib.learn.preprocessing``'s text processors after ``install()``:
``VocabularyProcessor`` (the word ids of the text CNN and RNN classifiers of
2016-18: ``learn.preprocessing.VocabularyProcessor(max_document_length)``,
``fit_transform``, ``save`` next to the checkpoint, ``restore`` at
prediction), ``CategoricalVocabulary`` under it, ``ByteProcessor`` and
``tokenizer``.

Pure Python in TF 1.15 and pure Python here, written again to its
behaviour: the tokenizer's pattern, ids by first appearance (0 for the
unknown token), ``min_frequency`` renumbering the words kept by frequency
then alphabet, ids past ``max_document_length`` cut and short documents
padded with 0. The vocabulary a TF1 run saved is a pickle naming TF 1.15's
classes by module path: install() registers those paths
(``MODULES``), so ``VocabularyProcessor.restore`` of that file gives these
classes with its words and ids, and a file saved here restores in TF 1.15.
tests/test_compat_contrib_learn.py holds both to files TF 1.15's own source
wrote (scripts/make_contrib_learn_goldens.py).
"""

from __future__ import annotations

import collections
import pickle
import re

import numpy as np
import tensorflow as tf

TEXT = "tensorflow.contrib.learn.python.learn.preprocessing.text"
VOCABULARY = "tensorflow.contrib.learn.python.learn.preprocessing.categorical_vocabulary"
# TF 1.15's word pattern: runs of capitals (an acronym), a capitalized word
# before another capital, or runs of word characters, apostrophes, hyphens
TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """Each string's tokens, a list per string."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Categories (words) to ids: ids by first sight from 1, 0 the unknown
    token; once frozen, new categories get 0. The attribute names are TF
    1.15's, which its pickles hold."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        self._freeze = freeze

    def get(self, category):
        """The category's id; a new one gets the next id unless frozen (0)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Counts the category (the unknown token is never counted)."""
        if self.get(category) > 0:
            self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps the categories seen more than ``min_frequency`` times (and,
        with ``max_frequency`` > 0, fewer than it), renumbered from 1 by
        frequency, ties in sorted order. TF 1.15 kept the first ``kept``
        entries of that order as the frequencies, skipped ones included."""
        ordered = sorted(self._freq.items(), key=lambda item: (isinstance(item[0], str), item[0]))
        ordered = sorted(ordered, key=lambda item: item[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        kept = 0
        for category, count in ordered:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            kept += 1
            self._mapping[category] = kept
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(ordered[:kept])

    def reverse(self, class_id):
        if not self._support_reverse:
            raise ValueError(
                "This vocabulary wasn't initialized with support_reverse to support "
                "reverse() function."
            )
        return self._reverse_mapping[class_id]


class ByteProcessor:
    """Documents as ``max_document_length`` UTF-8 bytes, zero padded."""

    def __init__(self, max_document_length):
        self.max_document_length = max_document_length

    def fit(self, x):
        pass

    def fit_transform(self, x):
        return self.transform(x)

    def reverse(self, x):
        for data in x:
            document = np.trim_zeros(data.astype(np.int8), trim="b").tobytes()
            try:
                yield document.decode("utf-8")
            except UnicodeDecodeError:
                yield ""

    def transform(self, x):
        for document in x:
            if isinstance(document, str):
                document = document.encode("utf-8")
            ids = np.frombuffer(memoryview(document)[: self.max_document_length], np.uint8)
            yield np.pad(ids, (0, self.max_document_length - len(ids)), "constant")


class VocabularyProcessor:
    """Documents as ``max_document_length`` word ids (int64): ``fit`` counts
    the tokens (then keeps those seen more than ``min_frequency`` times) and
    freezes the vocabulary; ``transform`` yields each document's ids, cut or
    padded with 0."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None,
                 tokenizer_fn=None):  # fmt: skip
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens[: self.max_document_length]):
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        with tf.io.gfile.GFile(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        with tf.io.gfile.GFile(filename, "rb") as f:
            return pickle.loads(f.read())


# TF 1.15's module paths, which pickled vocabularies name
for _cls in (ByteProcessor, VocabularyProcessor):
    _cls.__module__ = TEXT
CategoricalVocabulary.__module__ = VOCABULARY
tokenizer.__module__ = TEXT
