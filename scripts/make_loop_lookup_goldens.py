"""Write tests/goldens/loop_lookup_tf115.json: what
tests/legacy_scripts/loop_lookup_style.py prints when TensorFlow 1.15.5 runs
it, for each configuration below, which tests/test_compat_loop_lookup.py
holds ``python -m tf1_train.compat --v1 --v1_control_flow`` to.

Run it with TensorFlow 1.15.5 itself, in an environment of its own outside the
repository (its wheels are for Python 3.7):

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_loop_lookup_goldens.py

The program runs on resource variables (``tf.enable_resource_variables()``
before it starts, the program unchanged): on TF 1.x's reference variables
its Momentum runs race (a variable's update overlaps the reads of the
backward loop) and TF 1.15.5 prints other numbers from run to run.
"""

import json
import os
import subprocess
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "loop_lookup_style.py")
GOLDEN = os.path.join(ROOT, "tests", "goldens", "loop_lookup_tf115.json")
CONFIGS = {
    "while_momentum": ["--model=while", "--optimizer=momentum"],
    "while_sgd_clipped": ["--model=while", "--optimizer=sgd", "--clip=0.2"],
    "while_adam": ["--model=while", "--optimizer=adam"],
    "wrapper_momentum": ["--model=wrapper", "--optimizer=momentum"],
    "sampler_momentum": ["--model=sampler", "--optimizer=momentum", "--clip=0.2"],
}
RUN = (
    "import runpy, sys\nimport tensorflow as tf\ntf.enable_resource_variables()\n"
    "sys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def run(args):
    out = subprocess.run(
        [sys.executable, "-c", RUN, SCRIPT, *args], stdout=subprocess.PIPE, check=True
    )
    lines = out.stdout.decode().splitlines()
    return dict(line.split(" = ", 1) for line in lines if " = " in line)


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    configs = {name: {"args": args, "printed": run(args)} for name, args in CONFIGS.items()}
    with open(GOLDEN, "w") as f:
        json.dump({"tensorflow": tf.__version__, "configs": configs}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {GOLDEN}: {len(configs)} configurations")


if __name__ == "__main__":
    main()
