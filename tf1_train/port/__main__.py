"""`python -m tf1_train.port SUBCOMMAND ...`: one entry per subcommand in COMMANDS."""

import importlib
import sys
from typing import Optional, Sequence

# subcommand -> module whose main(argv) -> exit status runs it
COMMANDS = {
    "scan": "tf1_train.port.scan_cli",
    "check": "tf1_train.port.check",
    "convert": "tf1_train.port.convert",
}
HELP = """usage: python -m tf1_train.port SUBCOMMAND [ARGS...]   (SUBCOMMAND --help: its own)

  scan PATH...  what breaks, changes numbers or needs a rename on TF 2.16+ (docs/PORTING.md)
  check         train a TF1 model and its TF2 port side by side, name the first divergence
  convert       carry a checkpoint between the TF1 and TF2 sides (docs/PORT_CHECK.md)"""


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        print(HELP)
        return 0
    valid = ", ".join(sorted(COMMANDS))
    if not args or args[0] not in COMMANDS:
        what = f"unknown subcommand {args[0]!r}" if args else "no subcommand given"
        line = f"error: {what}; valid: {valid} (e.g. python -m tf1_train.port scan PATH)"
        print(line, file=sys.stderr)
        return 2
    return importlib.import_module(COMMANDS[args[0]]).main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
