"""Write tests/goldens/keras2_preprocessing.json: tests/keras2_preprocessing_cases.py
run with Keras 2.2.4's ``keras.preprocessing`` on TensorFlow 1.15.5, which
tests/test_compat_keras2_removed.py holds the names tf1_train.compat.install()
puts back into Keras 3 to. In a Python 3.7 environment with TensorFlow 1.15.5
(its Keras-Preprocessing 1.1.2 and SciPy) and Keras 2.2.4 (outside the repository):

    pip install --no-deps keras==2.2.4 pyyaml --target /tmp/k22
    PYTHONPATH=/tmp/k22 python scripts/make_keras2_preprocessing_goldens.py
"""

import json
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import keras  # noqa: E402
import keras2_preprocessing_cases as cases  # noqa: E402
import keras_preprocessing  # noqa: E402
from keras.preprocessing import image, sequence, text  # noqa: E402

with tempfile.TemporaryDirectory() as folder:
    found = cases.outcomes(image, text, sequence, folder)
found["versions"] = {
    "keras": keras.__version__,
    "keras_preprocessing": keras_preprocessing.__version__,
}
path = ROOT / "tests" / "goldens" / "keras2_preprocessing.json"
path.write_text(json.dumps(found, sort_keys=True) + "\n")
print("wrote", path, len(found), "outcomes")
