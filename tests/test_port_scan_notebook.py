"""The scan reads notebooks (tf1_train/port/sources.py): findings at
``NOTEBOOK.ipynb:cell_N`` and the line in that cell, a cell's names resolved
through the imports of the cells above it, a cell that does not parse one
error line while the others are still read, Jupyter's checkpoints skipped."""

import json

from tf1_train.port import scan, scan_cli, sources


def _notebook(path, *sources):
    cells = [{"cell_type": "code", "source": s, "outputs": [], "metadata": {}} for s in sources]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    return path


CELLS = (
    "%matplotlib inline\nimport tensorflow as tf\nimport numpy as np",
    "x = tf.placeholder(tf.float32, [None, 4])\nh = tf.layers.dense(x, 8)",
    "print 'accuracy', acc",
    "n = np.float(3)\nw = tf.get_default_graph().get_tensor_by_name('dense/kernel:0')",
)


def test_findings_are_located_at_their_cell_through_earlier_cells_imports(tmp_path):
    book = _notebook(tmp_path / "train.ipynb", *CELLS)
    report = scan.scan([str(tmp_path)], v1=True)
    name = str(book)
    assert sorted((f.rule, f.file, f.line) for f in report.findings) == [
        ("layers", f"{name}:cell_2", 2),  # tf: the import of cell_1
        ("numpy-builtin-alias", f"{name}:cell_4", 1),
        ("variable-tensor-name", f"{name}:cell_4", 2),
    ]
    assert report.errors == [
        f"error: {name}:cell_3:1: does not parse as Python 3: Missing parentheses in call to "
        "'print'. Did you mean print(...)?" + sources.NOTEBOOK_PYTHON2
    ]
    assert report.files == [name]
    assert scan_cli.exit_status(report) == 2


def test_jupyters_autosaved_copies_are_not_read(tmp_path):
    _notebook(tmp_path / "a.ipynb", CELLS[0], CELLS[1])
    _notebook(tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb", CELLS[0], CELLS[1])
    assert scan.scan([str(tmp_path)]).files == [str(tmp_path / "a.ipynb")]


def test_a_file_that_is_no_notebook_is_one_error_line(tmp_path):
    bad = tmp_path / "broken.ipynb"
    bad.write_text("{")
    report = scan.scan([str(bad)])
    assert len(report.errors) == 1 and report.errors[0].startswith(f"error: {bad}: cannot be read:")
    assert "not a Jupyter notebook" in report.errors[0]
