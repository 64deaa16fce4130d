"""The scan's Keras 2 modules against the Keras TensorFlow 2.21 installs
(Keras 3): every module the table calls gone does not import, every
``keras.X`` its fixes name does, and a program in the manner of TF1-era
Keras 2 code (ours) raises on exactly the lines the scan reports."""

import importlib
import re

import pytest
from conftest import raising_lines

from tf1_train.port import scan
from tf1_train.port.keras2_rules import GONE


@pytest.mark.parametrize("module", sorted(GONE))
def test_each_module_the_table_calls_gone_does_not_import(module):
    with pytest.raises(ImportError):
        importlib.import_module(module)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
        return found is not None
    return False


@pytest.mark.parametrize("module", sorted(GONE))
def test_each_replacement_a_fix_names_is_in_keras_3(module):
    for dotted in re.findall(r"(?<![\w.])keras(?:\.[A-Za-z_]\w*)+", GONE[module]):
        assert _resolves(dotted), (module, dotted)
    for dotted in re.findall(r"\btf\.(keras(?:\.[A-Za-z_]\w*)+)", GONE[module]):
        assert _resolves("tensorflow." + dotted), (module, dotted)  # TensorFlow's own tf.keras


PROGRAM = """\
import keras
from keras import backend as K
from keras.models import Sequential
from keras.layers import Dense, Dropout
from keras.utils import np_utils
from keras.layers.core import Activation
from keras.engine.topology import Layer
labels = [0, 1, 2]
y = keras.utils.to_categorical(labels, 3)
w = keras.utils.np_utils.to_categorical(labels, 3)
model = Sequential([Dense(3), Dropout(0.5)])
"""


def test_a_keras_2_program_breaks_exactly_where_the_scan_says(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    report = scan.scan([str(tmp_path)])
    found = {f.line for f in report.findings if f.rule == "keras2-module"}
    assert found == raising_lines(PROGRAM) == {5, 6, 7, 10}
