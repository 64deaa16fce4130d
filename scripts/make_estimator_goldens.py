"""Write the goldens tests/test_compat_estimator_canned.py holds tf1_train's
canned-Estimator logit functions to, using tensorflow-estimator's own.

tensorflow-estimator 2.15's DNN and Linear logit functions are Keras 2 models;
they run on TensorFlow 2.16+ only under tf_keras with TF_USE_LEGACY_KERAS=1,
which pulls the full tensorflow package, so this runs in a virtual
environment of its own, outside the repository:

    python3 -m venv /work/oracle-venv
    /work/oracle-venv/bin/pip install tensorflow==2.21.0 tf_keras==2.21.0
    /work/oracle-venv/bin/pip install --no-deps tensorflow-estimator==2.15.0
    PYTHONPATH=. /work/oracle-venv/bin/python scripts/make_estimator_goldens.py

Only what tensorflow-estimator needs to import on TensorFlow 2.21
(tf1_train.compat._estimator.prepare: the distribute bridge, the API names,
the TPU placeholders) is taken from tf1_train; the layers, feature columns and
logit functions are the package's and tf_keras' own. For each case of
tests/estimator_canned_cases.py it writes tests/goldens/estimator_canned/<case>/:
the step-1 checkpoint both sides start from, and golden.json (every variable
after 20 more steps, the evaluation, the predictions).
"""

import json
import os
import pathlib
import shutil
import sys
import tempfile

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import estimator_canned_cases as cases  # noqa: E402
import tensorflow as tf  # noqa: E402

from tf1_train.compat import _estimator  # noqa: E402


def _put(where, name, value):
    if isinstance(where, dict):
        where[name] = value
    else:
        setattr(where, name, value)


def main() -> None:
    tf.compat.v1.disable_eager_execution()
    _estimator.prepare(_put)
    import tensorflow_estimator._api.v1.estimator as estimator_api

    v1 = tf.compat.v1
    v1.estimator = estimator_api
    out = ROOT / "tests" / "goldens" / "estimator_canned"
    for name in cases.CASES:
        model_dir = tempfile.mkdtemp()
        cases.first_step(v1, name, model_dir)
        target = out / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for path in pathlib.Path(model_dir).glob("model.ckpt-1.*"):
            if path.suffix != ".meta":  # the Estimator restores into its own graph
                shutil.copy(path, target / path.name)
        (target / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-1"\n')
        result = cases.go_on(v1, name, model_dir)
        result["versions"] = {"tensorflow": tf.__version__, "tf_keras": _tf_keras_version()}
        (target / "golden.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        shutil.rmtree(model_dir)
        print(name, result["metrics"])


def _tf_keras_version() -> str:
    import tf_keras

    return tf_keras.__version__


if __name__ == "__main__":
    main()
