"""How a re-run notebook's cells compare with the outputs the notebook stored.

A TF1 notebook keeps what it printed on TensorFlow 1.x: losses per epoch,
arrays, accuracies. Those are the porter's numbers, and the re-run on
TensorFlow 2 either gives them again or it does not; so after the run each
cell with a stored output gets a verdict, and each one that is not "as
stored" gets a line. Compared: what the cell printed (its stdout stream) and
its shown value (``execute_result``'s text/plain); not stderr (warnings, logs
differ between versions), what ``display()`` showed (beside images and HTML),
images or errors. A cell that shows ``__version__`` is not compared.

Numbers are compared as numbers, the rest as text without its whitespace
(an array's column widths follow its values) and NumPy 2's scalar repr
(``np.float32(0.5)``) read as NumPy 1's (``0.5``), an object or function
by its class or function name (IPython showed ``<module.Class at 0x..>``,
module paths moved between versions), a shown dict with its keys sorted
(IPython sorted them before Python 3.7). A number is "as stored"
when it is the stored one to the coarser of the two printed precisions
(``0.7145004`` and ``0.71450037`` are one float32), "within 1e-4" when no
number is further than that relative to the stored one (the reordered sums of
another version's kernels), else the cell "differs" and its line names the
largest difference.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Tuple

from tf1_train import notebook

CLOSE = 1e-4  # relative: another kernel's rounding, not another result
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_NUMPY2_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str_|bytes_)\w*\(([^()]*)\)")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
_LOG = re.compile(r"^(WARNING|INFO|DEBUG|ERROR):tensorflow:")
# %%time, %timeit, Colab's %tensorflow_version
_TIMING = re.compile(
    r"^(CPU times: |Wall time: |.* per loop \(mean|\d+ loops?, best of |TensorFlow 1\.x selected)"
)
_UNKNOWN_DIM = re.compile(r"(?<=[(, ])\?(?=[,)])")  # TF 1.x's shape=(?, 3)
_REF_DTYPE = re.compile(r"dtype=(\w+)_ref\b")  # TF 1.x's reference variables
# magics that print nothing into the cell, or what the run prints too (%%writefile)
REPRODUCED = ("matplotlib", "load_ext", "reload_ext", "autoreload", "config", "pylab")
REPRODUCED += ("tensorflow_version", "time", "timeit", "capture", "writefile", "file")
# IPython showed an object as <module.Class at 0x..>, a function as
# <function module.f.<locals>.g>; repr() says <Class object at 0x..>, <function g at 0x..>;
# module paths moved between versions (tensorflow.python.estimator -> tensorflow_estimator)
_OBJECT = re.compile(r"<([\w.]*?)(\w+)(?: object)? at 0x\?>")
_FUNCTION = re.compile(
    r"<function ((?:\w+|<locals>|<lambda>)(?:\.(?:\w+|<locals>|<lambda>))*)(?: at 0x\?)?>"
)
_NUMPY_PRECISION = 8  # digits NumPy prints an array's floats to ("1." is 1.00000000)


def stored_text(cell: notebook.Cell) -> Optional[str]:
    """What the notebook stored as printed and shown, or None if nothing."""
    parts = []
    for output in cell.outputs:
        kind = output.get("output_type")
        if kind == "stream" and output.get("name") == "stdout":
            parts.append(notebook._text(output.get("text")))
        elif kind in ("execute_result", "pyout"):  # pyout: nbformat 3
            data = output.get("data") or {}
            text = data.get("text/plain", output.get("text"))
            parts.append(notebook._text(text) + "\n")
    return "".join(parts) if parts else None


def not_compared(cell: notebook.Cell) -> str:
    """Why the cell's stored output cannot be held to the run's, or ''."""
    if cell.skipped:
        return f"not Python ({cell.skipped}), not run"
    if "__version__" in cell.source:
        return "it shows a version"
    shell = [m.text for m in cell.magics if m.text.startswith("!") or "= !" in m.text]
    loud = [m.text for m in cell.magics if m.text.lstrip("%").split(" ")[0] not in REPRODUCED]
    if shell or loud:
        return f"its IPython lines printed into it and were not run ({(shell + loud)[0]})"
    return ""


def _printed(text: str) -> str:
    """The text without what only says how the cell ran: TensorFlow's log
    lines (TF 1.x's deprecation notices reached a notebook's stdout), and
    %%time's and %timeit's timings."""
    kept, skip = [], 0
    for line in text.replace("\r\n", "\n").split("\n"):
        if skip:
            skip -= 1
        elif _LOG.match(line) or _TIMING.match(line):
            continue
        elif line.startswith("Instructions for updating:"):
            skip = 1
        else:
            kept.append(line)
    return "\n".join(kept)


def _tokens(text: str) -> Tuple[str, List[str]]:
    text = _ADDRESS.sub("0x?", _NUMPY2_SCALAR.sub(r"\1", _printed(text)))
    text = _REF_DTYPE.sub(r"dtype=\1", _UNKNOWN_DIM.sub("None", text))
    text = _OBJECT.sub(r"<\2>", _FUNCTION.sub(lambda m: f"<function {m[1].split('.')[-1]}>", text))
    text = _sorted_dicts(text)
    numbers = _NUMBER.findall(text)
    words = "".join(_NUMBER.sub("#", text).split())
    return words, numbers


def _sorted_dicts(text: str) -> str:
    """A shown dict (or a structure holding one) with its keys sorted:
    IPython sorted them before Python 3.7, the run's repr keeps their order."""
    if "{" not in text:
        return text
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return repr(_sort(value))


def _sort(value):
    if isinstance(value, dict):
        return dict(sorted(((k, _sort(v)) for k, v in value.items()), key=lambda kv: repr(kv[0])))
    if isinstance(value, (list, tuple)):
        return type(value)(_sort(v) for v in value)
    return value


def _decimals(number: str) -> int:
    mantissa, _, exponent = number.lower().partition("e")
    whole, dot, fraction = mantissa.partition(".")
    if not dot:
        return 99  # an integer: exact
    digits = len(fraction) if fraction else _NUMPY_PRECISION
    return digits - int(exponent or 0)


def verdict(stored: str, now: str) -> Tuple[str, str]:
    """("same" | "close" | "differs" | "text", what differs) of one cell. A
    TF 1.x deprecation notice's instructions can run over several lines
    (TF 1.x printed them to the notebook): where the whole text is other, the
    lines after the last notice are held to what the run printed."""
    kind, what = _verdict(stored, now)
    marker = "Instructions for updating:"
    if kind == "text" and marker in stored:
        rest = stored.replace("\r\n", "\n").rsplit(marker, 1)[1].split("\n")
        wanted = len([line for line in now.split("\n") if line.strip()])
        lines = [line for line in rest if line.strip()]
        tail_kind, tail_what = _verdict("\n".join(lines[len(lines) - wanted :]), now)
        if tail_kind != "text" and wanted <= len(lines):
            return tail_kind, tail_what
    return kind, what


def _verdict(stored: str, now: str) -> Tuple[str, str]:
    stored_words, stored_numbers = _tokens(stored)
    now_words, now_numbers = _tokens(now)
    if stored_words != now_words or len(stored_numbers) != len(now_numbers):
        return "text", f"stored {_excerpt(stored)}, now {_excerpt(now)}"
    off = [  # relative to the larger of the two (a stored 0 against 532: 1.0)
        (abs(float(a) - float(b)) / max(abs(float(a)), abs(float(b))), a, b)
        for a, b in zip(stored_numbers, now_numbers)
        if not _as_printed(a, b)
    ]
    if not off:
        return "same", ""
    worst, a, b = max(off)
    what = (f"{len(off)} of {len(stored_numbers)} numbers differ, the most by {worst:.1e} "
            f"relative (stored {a}, now {b})")  # fmt: skip
    return ("close" if worst <= CLOSE else "differs"), what


def _as_printed(a: str, b: str) -> bool:
    """Whether two printed numbers are one value to the coarser precision."""
    return abs(float(a) - float(b)) <= 0.5 * 10.0 ** -min(_decimals(a), _decimals(b))


def _excerpt(text: str) -> str:
    line = " ".join(text.split())
    return repr(line if len(line) <= 60 else line[:57] + "...")


def report(book: notebook.Notebook, printed: Dict[int, str]) -> Iterator[str]:
    """One line per cell not as stored, then the summary line."""
    stored = {c.number: stored_text(c) for c in book.cells}
    compared = [c for c in book.cells if stored[c.number] is not None]
    if not compared:
        yield f"notebook: {book.path} stored no outputs: nothing to compare the run with"
        return
    counts = dict.fromkeys(("same", "close", "differs", "text", "not compared"), 0)
    labels = {"close": f"within {CLOSE:g}", "differs": "differs", "text": "other text"}
    for cell in compared:
        if cell.number not in printed:
            continue
        why = not_compared(cell)
        if why:
            kind, what = "not compared", why
        else:
            kind, what = verdict(stored[cell.number], printed[cell.number])
        counts[kind] += 1
        if kind != "same":
            yield f"notebook: cell_{cell.number}: {labels.get(kind, kind)}: {what}"
    ran = sum(counts.values())
    summary = (f"notebook: {book.path}: {len(compared)} cells stored an output; {ran} ran: "
               f"{counts['same']} as stored, {counts['close']} within {CLOSE:g} relative, "
               f"{counts['differs']} differ, {counts['text']} other text, "
               f"{counts['not compared']} not compared")  # fmt: skip
    missing = len(compared) - ran
    yield summary + (f"; {missing} not run (the run stopped)" if missing else "")
