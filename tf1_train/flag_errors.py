"""absl's parse errors as one line that names the flag and what is valid.

absl reports ``--batch_size=abc`` as "flag --batch_size=abc: invalid literal
for int() with base 10: 'abc'" and a missing flagfile as "ERROR:: Unable to
open flagfile: ...": true, but neither says what would be accepted. This
module rewrites them in the project's form, ``--flag=value: what is wrong;
what is valid``. It reads nothing global: main.py hands it the error and
its FlagValues.
"""

from __future__ import annotations

import re

from absl import flags

_ILLEGAL = re.compile(r"^flag --(\w+)=(.*?): (.*)$", re.S)


def explain(error: flags.Error, flag_values: flags.FlagValues) -> str:
    """One line for an absl parse error (without the ``error:`` prefix)."""
    text = str(error).strip()
    if isinstance(error, flags.UnrecognizedFlagError):
        return _unknown(error.flagname, text)
    if isinstance(error, flags.CantOpenFlagFileError):
        detail = text.split("Unable to open flagfile:", 1)[-1].strip()
        return (
            f"--flagfile: cannot be read ({detail}); "
            "give an existing flags file, e.g. --flagfile=flags/default.flags"
        )
    m = _ILLEGAL.match(text)
    if m and m.group(1) in flag_values:
        name, value = m.group(1), m.group(2)
        return f"--{name}={value}: {_valid(flag_values[name], m.group(3))}"
    return text.splitlines()[0] if text else type(error).__name__


def _unknown(name: str, text: str) -> str:
    m = re.search(r"Did you mean: (.*?) \?", text)
    if m:
        guesses = ", ".join(f"--{g.strip()}" for g in m.group(1).split(","))
        return f"--{name}: unknown flag; did you mean {guesses}? (--helpshort lists them all)"
    return f"--{name}: unknown flag; --helpshort lists the valid ones"


def _valid(flag: flags.Flag, why: str) -> str:
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
