"""A Jupyter notebook as the Python its kernel ran: the scan reads it and the
compat runner runs it (``python -m tf1_train.compat NOTEBOOK.ipynb``).

Much TF1 code lives in notebooks (tutorials, books' chapters, a project's
experiments), and a notebook is not a Python file: its code cells carry
IPython's syntax (``%matplotlib inline``, ``!pip install ...``, ``%%time``
cells, Colab's ``%tensorflow_version 1.x`` inside a ``try:``), and a cell
uses what earlier cells defined. So the code cells are read in order, each
IPython line turned into ``pass`` at its indentation (the cell's line numbers
kept), each listed as a ``Magic`` so nothing is dropped without a word.
A cell of another language (``%%bash``, ``%%html``) is not Python and is
skipped, also listed. Cells are numbered from 1 in the notebook's order,
markdown cells counted, as ruff counts them, and named
``NOTEBOOK.ipynb:cell_N``.

Only a cell that does not parse as Python is rewritten: a cell that parses
has no IPython syntax, and a ``%`` that starts a line of a string stays.
Colab's ``%tensorflow_version`` inside a ``try:`` raises, as it did in
Jupyter outside Colab, so the ``except`` branch runs as it ran there.
"""

from __future__ import annotations

import ast
import json
import re
from typing import List, NamedTuple, Optional, Tuple

# cell magics whose body is Python the kernel runs; the others are not Python
PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun", "debug")
WRITEFILE = ("writefile", "file")  # the body is written to a file, not run
COLAB_ONLY = ("%tensorflow_version",)
UNKNOWN_MAGIC = "UsageError: Line magic function `%tensorflow_version` not found (Colab's own)"
_MAGIC = re.compile(r"^\s*(%|!(?!=)|\?)")  # %magic, !shell, ?help
_ASSIGNED = re.compile(r"^(\s*)([\w.]+(?:\s*,\s*[\w.]+)*)\s*=\s*([%!])")  # x = !ls
_HELP = re.compile(r"^(\s*)[\w.]+\?\??\s*$")  # name? / name??


class Magic(NamedTuple):
    cell: int  # the cell's number (Cell.number)
    line: int  # in the cell, from 1
    text: str  # the line as written


class Cell(NamedTuple):
    number: int  # its place in the notebook, from 1, markdown cells counted
    source: str  # the Python the kernel ran, IPython lines made `pass`; '' if skipped;
    # a %%writefile cell's body
    magics: Tuple[Magic, ...]  # the IPython lines and cell magics, as written
    outputs: Tuple[dict, ...]  # what the notebook stored: nbformat output dicts
    skipped: str = ""  # a cell of another language: its cell magic (%%bash)
    writefile: str = ""  # a %%writefile cell: its target path
    syntax_error: Optional[SyntaxError] = None  # Python that does not parse even so


class Notebook(NamedTuple):
    path: str
    cells: List[Cell]
    python2: bool = False  # saved from a Python 2 kernel (its metadata says so)


def read(path: str) -> Notebook:
    """The notebook's code cells; ValueError (one line) if ``path`` is not a
    Python notebook: not JSON, no cells, or another kernel's language."""
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a Jupyter notebook (not JSON: {e})") from None
    if not isinstance(data, dict):
        raise ValueError("not a Jupyter notebook (its JSON is not an object)")
    language = _language(data)
    if language and language != "python":
        raise ValueError(f"a {language} notebook, not Python")
    raw = data.get("cells")
    if raw is None:  # nbformat 3: cells in worksheets, code in "input"
        raw = [c for w in data.get("worksheets") or [] for c in w.get("cells") or []]
    if not isinstance(raw, list) or (not raw and "cells" not in data and "worksheets" not in data):
        raise ValueError("not a Jupyter notebook (no cells)")
    cells = [(i, c) for i, c in enumerate(raw, 1) if isinstance(c, dict)]
    code = [cell(i, c) for i, c in cells if c.get("cell_type") == "code"]
    return Notebook(path, code, _python2(data))


def _language(data: dict) -> str:
    meta = data.get("metadata") or {}
    kernel = (meta.get("kernelspec") or {}).get("language") or ""
    info = (meta.get("language_info") or {}).get("name") or ""
    return str(kernel or info).lower()


def _python2(data: dict) -> bool:
    meta = data.get("metadata") or {}
    kernel = str((meta.get("kernelspec") or {}).get("name") or "")
    version = str((meta.get("language_info") or {}).get("version") or "")
    return kernel == "python2" or version.startswith("2.")


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def cell(number: int, data: dict) -> Cell:
    """One code cell as its kernel ran it."""
    text = _text(data.get("source", data.get("input", "")))
    outputs = tuple(o for o in data.get("outputs") or [] if isinstance(o, dict))
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    head = lines[first].strip() if first is not None else ""
    listed: Tuple[Magic, ...] = ()
    if head.startswith("%%"):
        name, _, rest = head[2:].partition(" ")
        listed = (Magic(number, first + 1, head),)
        if name in WRITEFILE:
            target = [w for w in rest.split() if not w.startswith("-")]
            body = "\n".join(lines[first + 1 :])
            return Cell(number, body, listed, outputs, writefile=target[0] if target else "")
        if name not in PYTHON_CELL_MAGICS:
            return Cell(number, "", listed, outputs, skipped=head.split()[0])
        lines[first] = "pass"
        text = "\n".join(lines)
    try:
        ast.parse(text)
        return Cell(number, text, listed, outputs)
    except SyntaxError:
        pass
    python, magics = python_lines(number, lines)
    try:
        ast.parse(python)
    except SyntaxError as e:
        return Cell(number, python, listed + magics, outputs, syntax_error=e)
    return Cell(number, python, listed + magics, outputs)


def python_lines(number: int, lines: List[str]) -> Tuple[str, Tuple[Magic, ...]]:
    """``lines`` with each IPython line made Python of the same indentation."""
    out, magics = [], []
    continued = False  # the line before was an IPython line ending in a backslash
    for i, line in enumerate(lines, 1):
        if continued:  # IPython joined it to that line (`!cmd \\` then its arguments)
            out.append("")
            continued = line.rstrip().endswith("\\")
            continue
        assigned = _ASSIGNED.match(line)
        if assigned:
            value = "[]" if assigned.group(3) == "!" else "None"
            out.append(f"{assigned.group(1)}{assigned.group(2)} = {value}")
        elif _MAGIC.match(line) or _HELP.match(line):
            out.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            out.append(line)
            continue
        continued = line.rstrip().endswith("\\")
        magics.append(Magic(number, i, line.strip()))
    return _colab_only(out, magics), tuple(magics)


def _colab_only(out: List[str], magics: List[Magic]) -> str:
    """``out`` joined, each Colab-only magic inside a ``try:`` body raising
    instead: outside Colab IPython has no ``%tensorflow_version`` and raised
    UsageError there, so the ``except`` branch ran (handson-ml's ``IS_COLAB =
    False``, its ``!apt install`` lines after it not run)."""
    colab = {m.line for m in magics if m.text.split(" ")[0] in COLAB_ONLY}
    try:
        tree = ast.parse("\n".join(out))
    except SyntaxError:
        return "\n".join(out)
    tried = {
        n.lineno
        for t in ast.walk(tree)
        if isinstance(t, ast.Try)
        for s in t.body
        for n in ast.walk(s)
        if isinstance(n, ast.Pass)
    }
    for line in colab & tried:
        indent = out[line - 1][: len(out[line - 1]) - len(out[line - 1].lstrip())]
        out[line - 1] = f"{indent}raise RuntimeError({UNKNOWN_MAGIC!r})"
    return "\n".join(out)


def label(path: str, number: int) -> str:
    """How a cell is named in findings and tracebacks: ``nb.ipynb:cell_3``."""
    return f"{path}:cell_{number}"


def joined(notebook: Notebook) -> Tuple[str, List[Tuple[int, int]]]:
    """The Python cells as one source (so a cell's names resolve through the
    imports of the cells before it), and (first line, cell number) of each."""
    parts, starts, line = [], [], 1
    for c in notebook.cells:
        if c.skipped or c.writefile or c.syntax_error:
            continue
        body = c.source.rstrip("\n") + "\n"
        starts.append((line, c.number))
        parts.append(body)
        line += body.count("\n")
    return "".join(parts), starts


def where(starts: List[Tuple[int, int]], line: int) -> Tuple[int, int]:
    """(cell number, line in that cell) of line ``line`` of ``joined``'s source."""
    cell_start, number = max((s for s in starts if s[0] <= line), default=(1, 0))
    return number, line - cell_start + 1
