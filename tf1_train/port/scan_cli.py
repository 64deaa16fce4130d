"""`python -m tf1_train.port scan PATH... [--json FILE] [--compat] [--v1] [--v1_shapes]
[--v1_variables] [--v1_control_flow]`: the scan's command line and its two outputs, a Markdown table
and JSON (scan.py finds; this module reads the options and prints).

`--compat`: the program runs unmodified through ``python -m tf1_train.compat``;
`--v1`, `--v1_shapes`, `--v1_variables`, `--v1_control_flow`: through it with
that option. Exit
status: 2 for bad input (each problem one `error:` line, the other files still
scanned), else 1 if anything breaks, else 0.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from tf1_train.port.rules import BREAKS, RENAME, SEVERITIES

if TYPE_CHECKING:  # scan.py imports TensorFlow: not for --help
    from tf1_train.port.scan import Finding, Report

JSON_VERSION = 1
RENAMES = (
    "({n} rename: names TensorFlow 2 moved, as tf.placeholder to tf.compat.v1.placeholder; "
    "as written each raises AttributeError: rename them, or run the program through "
    "python -m tf1_train.compat --v1 and scan it with --v1)"
)
HELP = """usage: python -m tf1_train.port scan PATH... [--json FILE|-] [--compat]
           [--v1] [--v1_shapes] [--v1_variables] [--v1_control_flow]

Reads every .py file (and a code base's C++/CUDA op sources and build scripts)
under each PATH and lists what breaks, changes numbers or needs a rename on
TensorFlow 2.16+ / Keras 3, with the fix and its docs/PORTING.md row.
  --json FILE    the findings as JSON too (- : JSON on stdout, the table on stderr)
  --compat       as the program runs through python -m tf1_train.compat
  --v1, --v1_shapes, --v1_variables, --v1_control_flow
                 as it runs through python -m tf1_train.compat with that option
Exit status: 0 nothing breaks, 1 something breaks, 2 bad input."""
OPTIONS = ("--compat", "--v1", "--v1_shapes", "--v1_variables", "--v1_control_flow")


def counts(findings: Sequence[Finding]) -> Dict[str, int]:
    return {s: sum(f.severity == s for f in findings) for s in SEVERITIES}


def table(report: Report) -> str:
    """Markdown table, one finding a row, and a summary line."""
    head = ("location", "severity", "construct", "fix", "tf_upgrade_v2", "PORTING.md row")
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for f in report.findings:
        cells = (f"{f.file}:{f.line}", f.severity, f.construct, f.fix, f.tf_upgrade_v2)
        cells += (f.porting_row,)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    summary = ", ".join(f"{n} {s}" for s, n in counts(report.findings).items())
    lines.append(f"\n{len(report.files)} files scanned, {len(report.findings)} findings: {summary}")
    renames = counts(report.findings)[RENAME]
    if renames:
        lines.append(RENAMES.format(n=renames))
    return "\n".join(lines)


def as_json(report: Report) -> str:
    return json.dumps(
        {
            "version": JSON_VERSION,
            "files": report.files,
            "errors": report.errors,
            "counts": counts(report.findings),
            "findings": [f._asdict() for f in report.findings],
        },
        indent=1,
    )


def exit_status(report: Report) -> int:
    if report.errors:
        return 2
    return 1 if any(f.severity == BREAKS for f in report.findings) else 0


def _parse_args(argv: Sequence[str]) -> Tuple[List[str], Optional[str], Optional[str]]:
    """(paths, json destination, error line)."""
    targets, json_to, rest = [], None, list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--json" or arg.startswith("--json="):
            json_to = arg.split("=", 1)[1] if "=" in arg else (rest.pop(0) if rest else "")
            if not json_to:
                return [], None, "error: --json needs a FILE (or - for stdout)"
        elif arg in ("-h", "--help"):
            return [], None, None
        elif arg.startswith("-") and arg != "-":
            valid = ", ".join(("--json FILE",) + OPTIONS)
            return [], None, f"error: unknown option {arg}; valid: {valid}"
        else:
            targets.append(arg)
    if not targets:
        return [], None, "error: scan needs at least one PATH (a .py file or a directory)"
    return targets, json_to, None


def main(argv: Sequence[str]) -> int:
    """``--compat``: the program runs through python -m tf1_train.compat; ``--v1``,
    ``--v1_shapes``, ``--v1_variables``, ``--v1_control_flow``: with that runner option
    (scan.scan)."""
    given = {o[2:]: o in argv for o in OPTIONS}
    targets, json_to, error = _parse_args([a for a in argv if a not in OPTIONS])
    if error:
        print(error, file=sys.stderr)
        return 2
    if not targets:  # -h, --help
        print(HELP)
        return 0
    from tf1_train.port.scan import scan

    report = scan(targets, **given)
    for line in report.errors:
        print(line, file=sys.stderr)
    print(table(report), file=sys.stderr if json_to == "-" else sys.stdout)
    if json_to == "-":
        print(as_json(report))
    elif json_to:
        try:
            pathlib.Path(json_to).write_text(as_json(report) + "\n")
        except OSError as e:
            print(f"error: --json {json_to}: cannot write: {e.strerror}", file=sys.stderr)
            return 2
    return exit_status(report)
