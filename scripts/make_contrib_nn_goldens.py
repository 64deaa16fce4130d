"""Write tests/goldens/contrib_nn.npz: what TensorFlow 1.15.5's own
``tf.contrib.nn`` computes on the inputs and graphs of
tests/contrib_nn_cases.py, which tests/test_compat_contrib_nn.py holds
tf1_train.compat's module to.

Run it with TensorFlow 1.15.5 itself, in an environment of its own outside the
repository (its wheels are for Python 3.7):

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_contrib_nn_goldens.py

The file holds the inputs (``in/<name>``), every output and gradient
(``out/<name>``) and the TensorFlow version that made them (``version``).
"""

import importlib.util
import os
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "goldens", "contrib_nn.npz")


def cases_module():
    path = os.path.join(ROOT, "tests", "contrib_nn_cases.py")
    spec = importlib.util.spec_from_file_location("contrib_nn_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    cases = cases_module()
    data = cases.inputs()
    with tf.Graph().as_default():
        import tensorflow.contrib.nn as contrib_nn

        out = cases.build(tf, contrib_nn, data)
        with tf.Session() as sess:
            values = sess.run(out)
    arrays = {"in/" + k: np.asarray(v) for k, v in data.items()}
    arrays.update({"out/" + k: v for k, v in values.items()})
    arrays["version"] = np.array(tf.__version__)
    np.savez(GOLDEN, **arrays)
    print(f"wrote {GOLDEN}: {len(values)} outputs")


if __name__ == "__main__":
    main()
