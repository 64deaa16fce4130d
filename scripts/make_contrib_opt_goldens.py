"""Write tests/goldens/contrib_opt_tf115.npz, contrib_opt_cluster_tf115.npz and
contrib_metrics_tf115.npz:
what the programs of tests/contrib_opt_cases.py and contrib_opt_more_cases.py
(tf.contrib.opt's SciPy interface, Adam family, wrappers, LARS, sign
optimizers, ...), tests/contrib_opt_cluster_cases.py (its elastic averaging on
an in-process ps/worker cluster) and tests/contrib_metrics_cases.py
(tf.contrib.metrics)
compute on TensorFlow 1.15.5 itself, which tests/test_compat_contrib_opt.py
and test_compat_contrib_metrics.py hold tf1_train.compat's to.

Run it with TensorFlow 1.15.5, in an environment of its own outside the
repository (its wheels are for Python 3.7), on TF 1.15's own reference
variables:

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21' scipy==1.2.3
    /tmp/tf115-venv/bin/python scripts/make_contrib_opt_goldens.py

The file holds ``<case>|<array>`` for each case's arrays, ``version``,
``scipy`` (the SciPy those ran on) and ``names`` (the module's public names).
"""

import os
import sys

import numpy as np
import scipy
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDENS = os.path.join(ROOT, "tests", "goldens")


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import contrib_metrics_cases
    import contrib_opt_cases
    import contrib_opt_cluster_cases

    for cases, module, golden in [
        (contrib_opt_cases, tf.contrib.opt, "contrib_opt_tf115.npz"),
        (contrib_metrics_cases, tf.contrib.metrics, "contrib_metrics_tf115.npz"),
        (contrib_opt_cluster_cases, tf.contrib.opt, "contrib_opt_cluster_tf115.npz"),
    ]:
        arrays = {"version": np.array(tf.__version__), "scipy": np.array(scipy.__version__)}
        arrays["names"] = np.array(sorted(n for n in dir(module) if not n.startswith("_")))
        for name, fn in cases.CASES.items():
            arrays.update({f"{name}|{k}": v for k, v in fn(module, tf).items()})
        path = os.path.join(GOLDENS, golden)
        np.savez_compressed(path, **arrays)
        print(f"wrote {path}: {len(cases.CASES)} cases, {len(arrays)} arrays")


if __name__ == "__main__":
    main()
