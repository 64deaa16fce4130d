"""Write tests/goldens/contrib_seq2seq_<group>.json: what the programs of
tests/contrib_seq2seq_cases*.py compute with TensorFlow 1.15.5's own
``tf.contrib.seq2seq``, which tests/test_compat_contrib_dynamic_decode.py
holds tf1_train.compat's to.

Run it with TensorFlow 1.15.5 itself, in an environment of its own outside the
repository (its wheels are for Python 3.7):

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/python scripts/make_contrib_seq2seq_goldens.py [GROUP...]

Until 2026-12-06 these goldens came from TF 1.15's seq2seq *source* run on
TensorFlow 2.21, which builds its loops with TF 2's control flow: one number
(a gradient norm through ScheduledEmbeddingTrainingHelper's lookups) was TF
2's, not TF 1.15's. TensorFlow 1.15.5 itself has no such gap.
"""

import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit(f"error: run this with TensorFlow 1.15 (found {tf.__version__})")
    from tensorflow.contrib import seq2seq

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import contrib_seq2seq_cases as cases

    for group in sys.argv[1:] or cases.GROUPS:
        results = {name: cases.run(seq2seq, tf, fn) for name, fn in cases.cases(group).items()}
        out = os.path.join(ROOT, "tests", "goldens", f"contrib_seq2seq_{group}.json")
        report = {"tensorflow": tf.__version__, "source": "tensorflow.contrib.seq2seq"}
        with open(out, "w") as f:
            f.write(json.dumps({**report, "cases": results}, indent=None, sort_keys=True) + "\n")
        print(f"{out}: {len(results)} cases")


if __name__ == "__main__":
    main()
