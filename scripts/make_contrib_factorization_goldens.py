"""Write tests/goldens/contrib_factorization_tf115.json: tests/contrib_factorization_cases.py
run with TensorFlow 1.15.5's own tf.contrib.factorization, which
tests/test_compat_contrib_factorization.py holds tf1_train.compat's to. Run with a
Python 3.7 that has tensorflow==1.15.5 (outside the repository):

    python scripts/make_contrib_factorization_goldens.py
"""

import json
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import contrib_factorization_cases as cases  # noqa: E402
import tensorflow as tf  # noqa: E402

with tempfile.TemporaryDirectory() as model_dir:
    found = cases.outcomes(tf, model_dir)
found["versions"] = {"tensorflow": tf.__version__}
path = ROOT / "tests" / "goldens" / "contrib_factorization_tf115.json"
path.write_text(json.dumps(found, sort_keys=True) + "\n")
print("wrote", path, len(found), "outcomes")
