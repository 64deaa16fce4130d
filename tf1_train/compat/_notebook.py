"""``python -m tf1_train.compat NOTEBOOK.ipynb``: a TF1 notebook's code cells
run in order, as Jupyter's "Run All" ran them, with no Jupyter installed.

As a kernel does: one namespace for every cell; the notebook's directory as
the working directory (its relative paths, ``datasets/housing.csv``, are
relative to it); a cell's last bare expression shown (its ``repr``, unless
the line ends with ``;``); the run stops at the first cell that raises, its
traceback naming ``NOTEBOOK.ipynb:cell_N`` and the line in that cell.
Matplotlib draws to no window (``MPLBACKEND=Agg`` unless set), as the inline
backend never blocked. ``%%writefile`` cells write their file.

IPython's own lines (``%matplotlib inline``, ``!pip install ...``, a
``%%bash`` cell) are not Python and are not run: one ``note:`` line lists
them before the first cell. What each cell printed and showed is kept, and
compared afterwards with the outputs the notebook stored (_notebook_outputs.py).
"""

from __future__ import annotations

import ast
import builtins
import linecache
import os
import sys
import traceback
from typing import Dict, List

from tf1_train import notebook
from tf1_train.compat import _ipython_stub, _notebook_outputs


class _Tee:
    """sys.stdout for the whole run, which also keeps what the running cell
    printed. One object for every cell, as a kernel's: an object that kept
    ``sys.stdout`` in an earlier cell (``pprint.PrettyPrinter()``, a logging
    handler) prints through it into the cell that calls it (a stream per
    cell had sent that text to the cell that made the object, and the cell
    that printed it was "other text")."""

    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def take(self) -> str:
        """What was printed since the last take()."""
        text, self.parts = "".join(self.parts), []
        return text

    def __getattr__(self, name):
        return getattr(self.stream, name)


def note(book: notebook.Notebook) -> str:
    """The one line naming what was not run, or ''."""
    magics = [m for c in book.cells for m in c.magics if not c.writefile]
    if not magics:
        return ""
    shown = ", ".join(f"cell_{m.cell}:{m.line} {m.text}" for m in magics[:8])
    more = f", and {len(magics) - 8} more" if len(magics) > 8 else ""
    return f"note: {book.path}: {len(magics)} IPython lines not run (not Python): {shown}{more}"


def run(path: str) -> None:
    """Runs the notebook at ``path`` (already known to read) and reports how
    its cells' outputs compare with the stored ones. A cell that raises ends
    the run (SystemExit(1)) after its traceback (the runner adds its note on
    a TF 1.x name, _v1_notes.py)."""
    book = notebook.read(path)
    for line in (note(book), _python2_note(book)):
        if line:
            print(line, file=sys.stderr)
    if _ipython_stub.install(_display):
        print(f"note: {path}: IPython is not installed: IPython.display's {STUBS} are "
              "stand-ins that show nothing", file=sys.stderr)  # fmt: skip
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.chdir(os.path.dirname(os.path.abspath(path)))
    namespace = {"__name__": "__main__", "__file__": os.path.abspath(path)}
    namespace.update(__builtins__=builtins, display=_display)
    printed: Dict[int, str] = {}
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    try:
        for cell in book.cells:
            _cell(path, cell, namespace)
            printed[cell.number] = tee.take()
    except Exception as e:  # as a kernel shows it: from the cell, with its lines
        tb = e.__traceback__
        while tb and not tb.tb_frame.f_code.co_filename.startswith(f"{path}:cell_"):
            tb = tb.tb_next
        # a cell that does not parse: its line and caret, none of the runner's frames
        shown = None if isinstance(e, SyntaxError) else tb or e.__traceback__
        traceback.print_exception(type(e), e, shown)
        raise SystemExit(1) from None
    finally:
        sys.stdout = tee.stream
        for line in _notebook_outputs.report(book, printed):
            print(line, file=sys.stderr)


STUBS = "display, Image, HTML, Markdown, clear_output and the other classes"


def _python2_note(book: notebook.Notebook) -> str:
    if not book.python2:
        return ""
    return (f"note: {book.path} was saved from a Python 2 kernel: its print statements do not "
            "parse, and its outputs are Python 2's (b'...' strings print as '...')")  # fmt: skip


def _display(*values) -> None:
    """IPython's ``display()``, which notebooks call without importing it:
    printed, not compared (a notebook stores it beside its images and HTML)."""
    stream = getattr(sys.stdout, "stream", sys.stdout)  # past the cell's _Tee
    for value in values:
        print(repr(value), file=stream)


def _cell(path: str, cell: notebook.Cell, namespace: dict) -> None:
    """Runs one cell, printing what it printed and showed."""
    if cell.skipped:
        return
    if cell.writefile:
        append = " -a " in f" {cell.magics[0].text} "
        said = "Overwriting" if os.path.exists(cell.writefile) else "Writing"
        said = "Appending to" if append else said
        with open(cell.writefile, "a" if append else "w") as f:
            f.write(cell.source.rstrip("\n") + "\n")
        print(f"{said} {cell.writefile}")  # as IPython says it
        return
    name = notebook.label(path, cell.number)
    lines = cell.source.splitlines(True)
    linecache.cache[name] = (len(cell.source), None, lines, name)  # tracebacks show the line
    tree = ast.parse(cell.source, filename=name)
    body, last = tree.body, None
    if body and isinstance(body[-1], ast.Expr) and not _silenced(lines):
        body, last = body[:-1], ast.Expression(body[-1].value)
    exec(compile(ast.Module(body, []), name, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, name, "eval"), namespace)
        if value is not None:
            namespace["_"] = value
            print(repr(value))


def _silenced(lines: List[str]) -> bool:
    code = [line.split("#", 1)[0].strip() for line in lines]
    code = [c for c in code if c]
    return bool(code) and code[-1].endswith(";")
