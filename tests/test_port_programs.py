"""The programs a scan's files make (tf1_train/port/programs.py): a file with the
scanned files it imports, by any of the names Python would find it under."""

import ast

from tf1_train.port import programs


def _groups(files):
    parsed = [(path, ast.parse(source)) for path, source in files]
    return [[parsed[i][0] for i in group] for group in programs.groups(parsed)]


def test_independent_scripts_are_programs_of_their_own():
    files = [("book/ch1/a.py", "import numpy\n"), ("book/ch2/b.py", "import tensorflow\n")]
    assert _groups(files) == [["book/ch1/a.py"], ["book/ch2/b.py"]]


def test_a_code_base_that_imports_its_modules_is_one_program():
    files = [
        ("repo/train.py", "from nmt import model\nimport utils.misc as misc\n"),
        ("repo/nmt/__init__.py", ""),
        ("repo/nmt/model.py", "from . import layers\n"),
        ("repo/nmt/layers.py", "import tensorflow as tf\n"),
        ("repo/utils/misc.py", ""),
        ("repo/tools/plot.py", "import matplotlib\n"),
        ("repo/notebook.ipynb", "import tensorflow\n"),
    ]
    assert _groups(files) == [
        ["repo/train.py", "repo/nmt/__init__.py", "repo/nmt/model.py", "repo/nmt/layers.py",
         "repo/utils/misc.py"],
        ["repo/tools/plot.py"],
        ["repo/notebook.ipynb"],
    ]  # fmt: skip


def test_a_helper_beside_each_script_is_that_scripts_own():
    """The TensorFlow cookbook's word2vec recipes each import the text_helpers.py of
    their own folder: a program each, not one."""
    files = [
        ("nlp/skipgram/train.py", "import text_helpers\n"),
        ("nlp/skipgram/text_helpers.py", ""),
        ("nlp/cbow/train.py", "import text_helpers\n"),
        ("nlp/cbow/text_helpers.py", ""),
        ("tools/run.py", "import helpers\n"),  # none beside it: the one found elsewhere
        ("lib/helpers.py", ""),
    ]
    assert _groups(files) == [
        ["nlp/skipgram/train.py", "nlp/skipgram/text_helpers.py"],
        ["nlp/cbow/train.py", "nlp/cbow/text_helpers.py"],
        ["tools/run.py", "lib/helpers.py"],
    ]
