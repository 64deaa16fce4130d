"""tf.contrib.learn.preprocessing's text processors after tf1_train.compat.install(),
held to TF 1.15's own source (tests/goldens/contrib_learn_*: its outputs and
two vocabularies it pickled, scripts/make_contrib_learn_goldens.py): the same
tokens, word ids, trimmed vocabularies and bytes; TF1's vocabulary files
restore with their words; a text classifier in the manner of the 2016-18
text CNNs trains, saves its vocabulary and predicts from it through
``python -m tf1_train.compat --v1``."""

import json
import pathlib

import contrib_learn_cases as cases
import numpy as np
import pytest
from conftest import ROOT, run_legacy_script

from tf1_train.compat import _contrib, _contrib_learn_text

GOLDENS = pathlib.Path(ROOT) / "tests" / "goldens"


def _golden() -> dict:
    return json.loads((GOLDENS / "contrib_learn_text.json").read_text())


def test_text_processors_compute_what_tf115_computed():
    ours = json.loads(json.dumps(cases.compute(_contrib_learn_text)))  # tuples as lists
    golden = _golden()
    assert sorted(ours) == sorted(golden)
    for name in golden:
        assert ours[name] == golden[name], name


def test_a_vocabulary_tf1_pickled_restores_with_its_words(installed, tmp_path):
    names = {}
    exec("from tensorflow.contrib import learn", names)  # as the text CNNs imported it
    processor = names["learn"].preprocessing.VocabularyProcessor
    golden = _golden()
    for name in ("vocab", "vocab_min_frequency"):
        restored = processor.restore(str(GOLDENS / f"contrib_learn_{name}.pkl"))
        assert type(restored) is processor  # TF 1.15's class paths are ours
        assert sorted(restored.vocabulary_._mapping.items()) == [
            tuple(pair) for pair in golden[name]["mapping"]]  # fmt: skip
        held_out = [row.tolist() for row in restored.transform(cases.HELD_OUT)]
        assert held_out == golden[name]["held_out"]
        restored.save(str(tmp_path / name))  # and back, the same words
        again = processor.restore(str(tmp_path / name))
        assert again.vocabulary_._mapping == restored.vocabulary_._mapping
    ids = np.array(golden["vocab"]["held_out"])
    assert (ids[0, :6] > 0).sum() == 5 and ids[1].max() == 0  # 'dog' unknown; all unknown


def test_a_text_cnn_style_program_trains_and_predicts_from_its_saved_vocabulary(tmp_path):
    # tests/legacy_scripts/text_cnn_style.py: import tensorflow as tf, learn's
    # VocabularyProcessor (fit_transform, save; restore in a prediction graph),
    # a convolution over the embedded words. Measured: 0.86 -> 0.05 in 60
    # steps, 200/200 held out right.
    script = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "text_cnn_style.py"
    values = run_legacy_script("--v1", tmp_path, str(script), str(tmp_path))
    assert float(values["last_loss"]) < float(values["first_loss"]) / 5
    assert float(values["accuracy"]) > 0.95
    assert int(values["vocabulary_size"]) == int(values["restored_vocabulary_size"]) > 10


def test_what_learn_keeps_is_what_the_scanner_calls_works(installed):
    names = {}
    exec("from tensorflow.contrib import learn", names)
    with pytest.raises(AttributeError, match="keeps learn.preprocessing's VocabularyProcessor"):
        names["learn"].preprocessing.CategoricalProcessor  # noqa: B018
    assert _contrib.kept("learn", "preprocessing", "VocabularyProcessor")
    assert _contrib.kept("learn", "ModeKeys")
    assert not _contrib.kept("learn", "preprocessing", "CategoricalProcessor")
    assert not _contrib.kept("learn", "Estimator")
