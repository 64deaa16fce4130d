"""tf1_train/notebook.py: a notebook's code cells as the Python its kernel
ran, IPython's lines made `pass` and listed, other languages skipped."""

import json
import re

import pytest

from tf1_train import notebook


def _book(tmp_path, *sources, name="nb.ipynb", **meta):
    cells = [{"cell_type": "markdown", "source": ["# title\n"], "metadata": {}}]
    cells += [{"cell_type": "code", "source": s, "outputs": [], "metadata": {}} for s in sources]
    data = {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 2}
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_ipython_lines_become_pass_at_their_indentation_and_are_listed(tmp_path):
    first = "import os\ntry:\n    %tensorflow_version 1.x\nexcept Exception:\n    pass\n"
    first += "%matplotlib inline\nfiles = !ls\nos.path?\n"
    book = notebook.read(_book(tmp_path, first, "x = 1"))
    cell = book.cells[0]
    assert cell.source.split("\n")[3:7] == ["except Exception:", "    pass", "pass", "files = []"]
    assert cell.source.split("\n")[2] == f"    raise RuntimeError({notebook.UNKNOWN_MAGIC!r})"
    assert [(m.cell, m.line, m.text) for m in cell.magics] == [
        (2, 3, "%tensorflow_version 1.x"),
        (2, 6, "%matplotlib inline"),
        (2, 7, "files = !ls"),
        (2, 8, "os.path?"),
    ]
    assert book.cells[1] == notebook.Cell(3, "x = 1", (), ())  # the markdown cell counted


def test_an_ipython_line_continued_with_a_backslash_is_one_line(tmp_path):
    """dopamine's colab/tensorboard.ipynb: ``!gsutil -q -m cp -R \\`` and its
    arguments on the next line, which IPython joined (the scan stopped at it)."""
    text = "!gsutil -q -m cp -R \\\n  gs://bucket/logs/* \\\n  /tmp/logs/\nx = 1\n"
    (cell,) = notebook.read(_book(tmp_path, text)).cells
    assert cell.source.split("\n")[:4] == ["pass", "", "", "x = 1"]
    assert [(m.line, m.text) for m in cell.magics] == [(1, "!gsutil -q -m cp -R \\")]


def test_a_cell_that_parses_is_left_as_written(tmp_path):
    text = 'usage = """\n%prog [options]\n!important\n"""\nx = 5 % 2\n'
    (cell,) = notebook.read(_book(tmp_path, text)).cells
    assert cell.source == text and cell.magics == ()


def test_cell_magics_python_bodies_run_other_languages_are_skipped(tmp_path):
    book = notebook.read(
        _book(tmp_path, "%%time\nx = 1\n", "%%bash\necho hi\n", "%%writefile -a m.py\nA = 1\n")
    )
    timed, bash, written = book.cells
    assert timed.source == "pass\nx = 1\n" and timed.magics[0].text == "%%time"
    assert bash.skipped == "%%bash" and bash.source == ""
    assert (written.writefile, written.source) == ("m.py", "A = 1\n")
    source, starts = notebook.joined(book)
    assert source == "pass\nx = 1\n" and starts == [(1, 2)]


def test_joined_cells_map_back_to_cell_and_line(tmp_path):
    book = notebook.read(_book(tmp_path, "a = 1\nb = 2", "print 'py2'", "c = 3\n\nd = 4\n"))
    assert book.cells[1].syntax_error is not None  # Python 2: left out, reported by the scan
    source, starts = notebook.joined(book)
    assert source.splitlines() == ["a = 1", "b = 2", "c = 3", "", "d = 4"]
    assert [notebook.where(starts, n) for n in (1, 2, 3, 5)] == [(2, 1), (2, 2), (4, 1), (4, 3)]


def test_nbformat_3_cells_are_read(tmp_path):
    data = {"nbformat": 3, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "code", "input": ["%pylab inline\n", "y = 2\n"], "language": "python",
         "outputs": [{"output_type": "pyout", "text": ["2"]}]}]}]}  # fmt: skip
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(data))
    (cell,) = notebook.read(str(path)).cells
    assert cell.source == "pass\ny = 2\n" and len(cell.outputs) == 1


@pytest.mark.parametrize(
    "content, said",
    [
        ("{not json", "not a Jupyter notebook (not JSON"),
        ("[1, 2]", "not a Jupyter notebook (its JSON is not an object)"),
        ('{"metadata": {}}', "not a Jupyter notebook (no cells)"),
        ('{"cells": [], "metadata": {"kernelspec": {"language": "R"}}}', "a r notebook, not"),
    ],
)
def test_what_is_not_a_python_notebook_says_so(tmp_path, content, said):
    path = tmp_path / "bad.ipynb"
    path.write_text(content)
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        notebook.read(str(path))


def test_colabs_magic_in_a_try_raises_as_it_did_outside_colab(tmp_path):
    """handson-ml's first cell: outside Colab IPython had no
    %tensorflow_version, so the except branch ran and the !apt lines did not."""
    source = "try:\n    %tensorflow_version 1.x\n    !apt install -y xvfb\n    IS_COLAB = True\n"
    source += "except Exception:\n    IS_COLAB = False\n%tensorflow_version 1.x\n"
    (cell,) = notebook.read(_book(tmp_path, source)).cells
    names = {}
    exec(cell.source, names)
    assert names["IS_COLAB"] is False
    assert cell.source.splitlines()[-1] == "pass"  # outside a try: not run, listed
    assert [m.line for m in cell.magics] == [2, 3, 7]
