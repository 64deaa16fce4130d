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
