"""The inputs tf.contrib.learn's text processors are held to TF 1.15 on
(scripts/make_contrib_learn_goldens.py runs them through TF 1.15's own
source, tests/test_compat_contrib_learn.py through tf1_train.compat's):
``compute(text)`` takes the ``text`` module of either and returns what it
made, as JSON; ``fitted(text)`` the processors whose pickles are kept."""

import numpy as np

CORPUS = [
    "the cat sat on the mat",
    "The Cat's hat -- a well-known hat!",
    "NASA launched HTTPServer logs at 9pm; the cat slept",
    "naïve café crème, the cat's",
    "",
    "one two three four five six seven eight nine ten eleven",
]
HELD_OUT = ["the dog sat on the cat", "unknown words only", "mat mat mat mat mat mat mat mat mat"]
TOKENS = [
    "CamelCaseWord and HTMLParser, XMLHttpRequest",
    "don't stop-believing -- it's 2019_v2",
    "  spaces\tand\nnewlines  ",
    "Ünïcödé Wörds ÀBC",
]


def fitted(text) -> dict:
    """The processors fitted on CORPUS (their pickles are goldens too)."""
    plain = text.VocabularyProcessor(8)
    plain.fit(CORPUS)
    trimmed = text.VocabularyProcessor(6, min_frequency=1)
    trimmed.fit(CORPUS)
    return {"vocab": plain, "vocab_min_frequency": trimmed}


def _ids(rows) -> list:
    return [np.asarray(row).tolist() for row in rows]


def compute(text) -> dict:
    out = {"tokens": [list(t) for t in text.tokenizer(TOKENS)]}
    for name, processor in fitted(text).items():
        vocabulary = processor.vocabulary_
        out[name] = {
            "fit_transform": _ids(type(processor)(processor.max_document_length,
                                                  processor.min_frequency).fit_transform(CORPUS)),
            "held_out": _ids(processor.transform(HELD_OUT)),
            "reverse": list(processor.reverse(processor.transform(CORPUS[:2]))),
            "mapping": sorted(vocabulary._mapping.items()),
            "freq": sorted(dict(vocabulary._freq).items()),
            "size": len(vocabulary),
        }  # fmt: skip
    counts = text.CategoricalVocabulary()
    # ints sort before strings, numerically: 7 before 10 (as strings, "10" first)
    for word, count in [("a", 5), ("b", 3), ("c", 3), ("d", 1), ("e", 9), (10, 3), (7, 3)]:
        counts.add(word, count)
    counts.trim(1, max_frequency=9)  # "e" skipped: TF 1.15 kept the frequencies off by one
    out["trim_max_frequency"] = {
        "mapping": sorted((str(k), v) for k, v in counts._mapping.items()),
        "freq": sorted((str(k), v) for k, v in counts._freq.items()),
    }
    frozen = text.CategoricalVocabulary(support_reverse=False)
    frozen.get("x")
    frozen.freeze()
    out["frozen"] = [frozen.get("x"), frozen.get("y"), len(frozen)]
    raw = text.ByteProcessor(8)
    bytes_ids = _ids(raw.transform(["héllo", b"abcdefghij", ""]))
    out["bytes"] = {"ids": bytes_ids,
                    "reverse": list(raw.reverse(np.array(bytes_ids, np.uint8)))}  # fmt: skip
    return out
