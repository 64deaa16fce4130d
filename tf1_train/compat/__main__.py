"""python -m tf1_train.compat SCRIPT.py [ARGS...]: run an unmodified legacy
``tf.layers`` program on Keras 3, as ``__main__`` with ``sys.argv`` set to
``[SCRIPT.py, ARGS...]``, after ``tf1_train.compat.install()``, in graph mode
as under TF1.

Graph mode because a TF1 program that builds inside ``with
tf.Graph().as_default():`` and never disables eager execution (tf-slim's
``train_image_classifier.py``) ran every thread in graph mode on TF1; on TF 2
a thread outside that block is eager, and ``tf.train.Supervisor``'s step
counter thread (``slim.learning.train``) then fails reading the global step
("is out of scope and cannot be used here") and training stops at step 0."""

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
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    sys.argv = [script, *argv[1:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
