"""Write tests/goldens/grad_accum_tf115.json: what
tests/legacy_scripts/grad_accum_style.py prints when TensorFlow 1.15.5 runs
it as written (TF 1.x's reference variables, on which ``initialized_value()``
works), which tests/test_compat_initialized_value.py holds
``python -m tf1_train.compat --v1`` to.

Run it with TensorFlow 1.15.5 itself, in an environment of its own outside the
repository (its wheels are for Python 3.7):

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_grad_accum_goldens.py
"""

import json
import os
import subprocess
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "grad_accum_style.py")
GOLDEN = os.path.join(ROOT, "tests", "goldens", "grad_accum_tf115.json")


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    out = subprocess.run([sys.executable, SCRIPT], stdout=subprocess.PIPE, check=True)
    lines = out.stdout.decode().splitlines()
    printed = dict(line.split(" = ", 1) for line in lines if " = " in line)
    with open(GOLDEN, "w") as f:
        json.dump({"tensorflow": tf.__version__, "printed": printed}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {GOLDEN}: {len(printed)} numbers")


if __name__ == "__main__":
    main()
