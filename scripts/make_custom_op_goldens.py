"""Write tests/goldens/interp_op_tf115.json: what
tests/legacy_scripts/interp_op/train_interp.py prints when TensorFlow 1.15.5
runs it as written, its custom op built by its own tf_interp_compile.sh (TF
1.x's flags), which tests/test_custom_ops.py holds the rebuilt op under
``python -m tf1_train.compat --v1`` on TensorFlow 2.21 to.

Run it with TensorFlow 1.15.5 itself, in an environment of its own outside the
repository (its wheels are for Python 3.7), with g++ on PATH:

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_custom_op_goldens.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "legacy_scripts", "interp_op")
GOLDEN = os.path.join(ROOT, "tests", "goldens", "interp_op_tf115.json")


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    with tempfile.TemporaryDirectory() as tmp:
        here = os.path.join(tmp, "interp_op")
        shutil.copytree(PROGRAM, here)
        subprocess.run(["bash", os.path.join(here, "tf_interp_compile.sh")], env=env, check=True)
        out = subprocess.run(
            [sys.executable, os.path.join(here, "train_interp.py")],
            stdout=subprocess.PIPE,
            check=True,
        )
    lines = out.stdout.decode().splitlines()
    printed = dict(line.split(" = ", 1) for line in lines if " = " in line)
    with open(GOLDEN, "w") as f:
        json.dump({"tensorflow": tf.__version__, "printed": printed}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {GOLDEN}: {len(printed)} numbers")


if __name__ == "__main__":
    main()
