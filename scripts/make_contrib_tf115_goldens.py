"""Write tests/goldens/contrib_tf115.npz: what the programs of
tests/contrib_tf115_cases.py (tf.contrib.rnn's cells, legacy_seq2seq, crf,
layers) compute on TensorFlow 1.15.5 itself, which
tests/test_compat_contrib_tf115.py holds tf1_train.compat's modules to.

Run it with TensorFlow 1.15.5, in an environment of its own outside the
repository (its wheels are for Python 3.7):

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_contrib_tf115_goldens.py

The file holds ``<case>|<array>`` for each case's arrays, ``<case>|variables``
(its variables' names and shapes, JSON) and ``version``.
"""

import json
import os
import sys
import types

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "goldens", "contrib_tf115.npz")


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    tf.enable_resource_variables()  # as tf1_train.compat's variables are
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import contrib_tf115_cases as cases

    contrib = tf.contrib
    m = types.SimpleNamespace(
        rnn=contrib.rnn, seq2seq=contrib.legacy_seq2seq, crf=contrib.crf, layers=contrib.layers
    )
    arrays = {"version": np.array(tf.__version__)}
    for name, fn in cases.CASES.items():
        values, variables = cases.run(m, tf, fn)
        arrays.update({f"{name}|{k}": v for k, v in values.items()})
        arrays[f"{name}|variables"] = np.array(json.dumps(variables))
    np.savez_compressed(GOLDEN, **arrays)
    print(f"wrote {GOLDEN}: {len(cases.CASES)} cases, {len(arrays)} arrays")


if __name__ == "__main__":
    main()
