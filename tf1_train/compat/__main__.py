"""python -m tf1_train.compat SCRIPT.py [ARGS...]: run an unmodified legacy
``tf.layers`` program on Keras 3, as ``__main__`` with ``sys.argv`` set to
``[SCRIPT.py, ARGS...]``, after ``tf1_train.compat.install()``."""

import os
import runpy
import sys
from typing import Optional

from tf1_train.compat import install

USAGE = "usage: python -m tf1_train.compat SCRIPT.py [ARGS...]"


def main(argv: Optional[list] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"error: {script}: no such file; {USAGE}", file=sys.stderr)
        return 2
    install()
    sys.argv = [script, *argv[1:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
