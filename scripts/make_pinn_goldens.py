"""Write tests/goldens/pinn_lbfgs_tf115.npz: what
tests/legacy_scripts/pinn_lbfgs_style.py (a physics-informed network trained
by tf.contrib.opt.ScipyOptimizerInterface's L-BFGS-B) computes on
TensorFlow 1.15.5 itself, which tests/test_compat_scipy_pinn.py holds
``python -m tf1_train.compat --v1`` and the program's TF 2 port to.

Run it with TensorFlow 1.15.5, in an environment of its own outside the
repository (its wheels are for Python 3.7), on TF 1.15's own reference
variables, as PINN code ran:

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21' scipy==1.2.3
    /tmp/tf115-venv/bin/python scripts/make_pinn_goldens.py

The file holds the program's ``--save`` arrays (the first loss and its
gradient, the loss at every evaluation, the weights after) and ``version``.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "pinn_lbfgs_style.py")
GOLDEN = os.path.join(ROOT, "tests", "goldens", "pinn_lbfgs_tf115.npz")


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    with tempfile.TemporaryDirectory() as tmp:
        saved = os.path.join(tmp, "pinn.npz")
        subprocess.run([sys.executable, SCRIPT, "--save", saved], check=True)
        with np.load(saved) as f:
            arrays = {k: f[k] for k in f.files}
    np.savez_compressed(GOLDEN, version=np.array(tf.__version__), **arrays)
    print(f"wrote {GOLDEN}: {len(arrays['losses'])} evaluations")


if __name__ == "__main__":
    main()
