"""absl's parse errors as one line that names the flag and what is valid.

absl reports ``--batch_size=abc`` as "flag --batch_size=abc: invalid literal
for int() with base 10: 'abc'" and a missing flagfile as "ERROR:: Unable to
open flagfile: ...": true, but neither says what would be accepted. This
module rewrites them in the project's form, ``--flag=value: what is wrong;
what is valid``. absl stays in main.py (PORTING.md P20): main.py hands over the
error and a lookup from flag name to absl's Flag object, and this module goes
by the error's class name and the Flag's attributes.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional, Sequence

_ILLEGAL = re.compile(r"^flag --(\w+)=(.*?): (.*)$", re.S)


def explain(
    error: Exception, flag_for: Callable[[str], Optional[Any]], argv: Sequence[str] = ()
) -> str:
    """One line for an absl parse error (without the ``error:`` prefix).

    Args:
      error: what absl raised (a subclass of ``absl.flags.Error``).
      flag_for: flag name -> its ``absl.flags.Flag``, or None if undefined.
      argv: the command line, to name the flagfile an unknown flag came from.
    """
    text = str(error).strip()
    kind = type(error).__name__
    if kind == "UnrecognizedFlagError":
        where = flagfile_defining(error.flagname, argv)
        return _unknown(error.flagname, text, f" (in {where})" if where else "")
    if kind == "CantOpenFlagFileError":
        detail = text.split("Unable to open flagfile:", 1)[-1].strip()
        return (
            f"--flagfile: cannot be read ({detail}); "
            "give an existing flags file, e.g. --flagfile=flags/default.flags"
        )
    m = _ILLEGAL.match(text)
    flag = flag_for(m.group(1)) if m else None
    if flag is not None:
        return f"--{m.group(1)}={m.group(2)}: {_valid(flag, m.group(3))}"
    return text.splitlines()[0] if text else type(error).__name__


def _unknown(name: str, text: str, where: str) -> str:
    m = re.search(r"Did you mean: (.*?) \?", text)
    if m:
        guesses = ", ".join(f"--{g.strip()}" for g in m.group(1).split(","))
        return (
            f"--{name}{where}: unknown flag; did you mean {guesses}? (--helpshort lists them all)"
        )
    return f"--{name}{where}: unknown flag; --helpshort lists the valid ones"


def flagfile_defining(name: str, argv: Sequence[str], depth: int = 0) -> Optional[str]:
    """The flags file (following nested --flagfile lines) that sets --name,
    or None when the flag came from the command line itself."""
    if depth > 8:  # absl refuses deeper recursion itself
        return None
    line = re.compile(rf"^\s*--?(no)?{re.escape(name)}(=|\s*$)")
    for arg in argv:
        if not arg.startswith("--flagfile="):
            continue
        path = arg.split("=", 1)[1]
        try:
            with open(path) as f:
                lines = [ln.strip() for ln in f]
        except OSError:
            continue
        if any(line.match(ln) for ln in lines):
            return path
        nested = flagfile_defining(name, [ln for ln in lines if ln.startswith("--")], depth + 1)
        if nested:
            return nested
    return None


def _valid(flag: Any, why: str) -> str:
    """What is wrong and what the flag accepts, by the flag's type."""
    kind = flag.flag_type()
    enum_values = getattr(flag.parser, "enum_values", None)
    if enum_values:
        return f"unknown value; valid: {', '.join(enum_values)}"
    if kind == "bool":
        return f"not a boolean; valid: --{flag.name}, --no{flag.name}, --{flag.name}=true|false"
    if kind == "int":
        return f"not a whole number; valid: an integer such as --{flag.name}={flag.default}"
    if kind == "float":
        return f"not a number; valid: a number such as --{flag.name}={flag.default}"
    return why.splitlines()[0]
