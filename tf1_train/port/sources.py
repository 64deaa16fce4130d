"""What the scan reads: which files under its arguments, and each as Python
source with a way back to where a finding is in the user's file.

A ``.py`` file is its own source. A notebook (``.ipynb``) is its code cells
joined in order (tf1_train/notebook.py), so one cell's names resolve through
the imports of the cells before it as they did in the kernel; a finding is
then put back at ``NOTEBOOK.ipynb:cell_N`` and its line in that cell. A cell
that does not parse is one error line and the other cells are still read.
Jupyter's autosaved copies (``.ipynb_checkpoints/``) are not read: they
repeat the notebooks beside them.
"""

from __future__ import annotations

import pathlib
from typing import List, NamedTuple, Optional, Sequence, Tuple

from tf1_train import notebook
from tf1_train.port import native_rules, python2

CHECKPOINTS = ".ipynb_checkpoints"
NOTEBOOK_PYTHON2 = (
    " (Python 2 source: 2to3 does not read notebooks; convert the cells, e.g. `jupyter "
    "nbconvert --to script`, 2to3 on the script and its cells pasted back, or edit them under "
    "a Python 3 kernel, then scan again)"
)
SUFFIXES = (".py", ".ipynb")


class Source(NamedTuple):
    file: str  # the path as given
    text: bytes  # the Python to parse
    starts: Tuple[Tuple[int, int], ...] = ()  # a notebook's (first line, cell number)


def _walked(path: pathlib.Path) -> List[pathlib.Path]:
    found = (p for s in SUFFIXES for p in path.rglob(f"*{s}") if p.is_file())
    return sorted(p for p in found if CHECKPOINTS not in p.relative_to(path).parts)


def python_files(args: Sequence[str]) -> Tuple[List[pathlib.Path], List[str]]:
    """Files to scan (directories walked for *.py and *.ipynb) and an error line
    per missing path; C++/CUDA sources and build scripts are native_files'."""
    files, errors = [], []
    for arg in args:
        path = pathlib.Path(arg)
        if path.is_dir():
            files.extend(_walked(path))
        elif path.is_file() and not native_rules.is_native(path):
            files.append(path)
        elif not path.is_file():
            give = "give .py files, notebooks, C++ sources, build scripts or folders"
            errors.append(f"error: {arg}: no such file or directory ({give})")
    return files, errors


def native_files(args: Sequence[str]) -> List[pathlib.Path]:
    """The C++/CUDA sources and build scripts among ``args`` and under its directories."""
    paths = [pathlib.Path(arg) for arg in args]
    return [f for p in paths if p.is_dir() for f in native_rules.native_files(p)] + [
        p for p in paths if p.is_file() and native_rules.is_native(p)
    ]


def read(path: pathlib.Path) -> Tuple[Optional[Source], List[str]]:
    """``path`` as Python source, and an error line for each part that is not."""
    if path.suffix != ".ipynb":
        try:
            return Source(str(path), path.read_bytes()), []
        except OSError as e:
            return None, [f"error: {path}: cannot be read: {e}"]
    try:
        book = notebook.read(str(path))
    except (OSError, ValueError) as e:
        return None, [f"error: {path}: cannot be read: {e}"]
    errors = [_cell_error(path, c) for c in book.cells if c.syntax_error]
    text, starts = notebook.joined(book)
    return Source(str(path), text.encode("utf-8"), tuple(starts)), errors


def _cell_error(path: pathlib.Path, cell: notebook.Cell) -> str:
    error = cell.syntax_error
    where = f"{notebook.label(str(path), cell.number)}:{error.lineno}"
    hint = NOTEBOOK_PYTHON2 if python2.hint(error) else ""
    return f"error: {where}: does not parse as Python 3: {error.msg}{hint}"


def location(source: Source, line: int) -> Tuple[str, int]:
    """(file, line) of line ``line`` of ``source.text``, as the user finds it."""
    if not source.starts:
        return source.file, line
    number, line = notebook.where(list(source.starts), line)
    return notebook.label(source.file, number), line
