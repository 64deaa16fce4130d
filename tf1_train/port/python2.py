"""Whether a file the scan cannot parse is Python 2: TF1 code bases of
2016-2018 often were (print statements, ``except E, e:``), and the scan
reads Python 3 only. Such a file gets one error line that says so and how
to convert it, instead of a bare syntax error per file.
"""

import re

HINT = (
    " (Python 2 source: convert the code base first, e.g. `2to3 -w DIR` with Python 3.12 or "
    "older, then scan the result)"
)
_MESSAGES = (
    "Missing parentheses in call to",  # print x, exec code
    "multiple exception types must be parenthesized",  # except Exception, e:
    "leading zeros in decimal integer literals",  # 0777
    "Function parameters cannot be parenthesized",  # def f(a, (b, c)):
)
# raise E, "why"; `x`; 10L; ur"..."
_LINE = re.compile(r"^\s*raise\s+[\w.]+\s*,|`|\b\d+[lL]\b|\b[uU][rR]['\"]")


def hint(error: SyntaxError) -> str:
    """HINT when ``error`` is Python 2 syntax, else ''."""
    python2 = any(m in (error.msg or "") for m in _MESSAGES) or _LINE.search(error.text or "")
    return HINT if python2 else ""
