"""Write the goldens that tests/test_compat_layers.py holds
tf1_train.compat.layers to, using the real legacy tf.compat.v1.layers.

Those layers exist on TensorFlow 2.16+ only through tf_keras with
TF_USE_LEGACY_KERAS=1, which pulls the full tensorflow package, so this runs in
a virtual environment of its own, outside the repository:

    python3 -m venv /work/oracle-venv
    /work/oracle-venv/bin/pip install tensorflow==2.21.0 tf_keras==2.21.0
    /work/oracle-venv/bin/python scripts/make_layer_goldens.py

It builds every model in tests/compat_layer_models.py, and writes
tests/goldens/compat_layers/goldens.json (names, shapes, dtypes, collections,
versions) and one <model>.npz each (weights, outputs, gradients,
regularization terms, variables after one run of UPDATE_OPS), plus Saver
checkpoints of two models. A model the real layers cannot run on this
machine is recorded with its error instead.
"""

import json
import os
import pathlib
import sys
import warnings

# Before TensorFlow loads: the legacy layers, and the same kernels the tests run.
os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "goldens" / "compat_layers"
CHECKPOINTS = ("convnet_train", "reuse_twice")


def main() -> int:
    try:
        import tf_keras
    except ImportError:
        print(
            "error: tf_keras is not installed in this Python; run this script with the "
            "separate environment described in its docstring",
            file=sys.stderr,
        )
        return 2
    import numpy as np
    import tensorflow as tf

    sys.path.insert(0, str(ROOT / "tests"))
    import compat_layer_models as models

    tf.compat.v1.disable_eager_execution()
    warnings.filterwarnings("ignore", category=UserWarning)  # "tf.layers is deprecated"
    layers = tf.compat.v1.layers
    OUT.mkdir(parents=True, exist_ok=True)
    report = {
        "tensorflow": tf.__version__,
        "tf_keras": tf_keras.__version__,
        "onednn": os.environ["TF_ENABLE_ONEDNN_OPTS"],
        "checkpoints": list(CHECKPOINTS),
        "models": {},
    }
    for name in models.MODELS:
        save_to = str(OUT / f"{name}.ckpt") if name in CHECKPOINTS else None
        try:
            meta, arrays = models.measure(tf, layers, name, save_to=save_to)
        except Exception as e:  # recorded, so the test can say why it skips
            report["models"][name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
            print(f"{name}: the legacy layers fail here: {report['models'][name]['error']}")
            continue
        report["models"][name] = meta
        np.savez_compressed(OUT / f"{name}.npz", **arrays)
        print(f"{name}: {len(meta['variables'])} variables, {len(arrays)} arrays")
    (OUT / "goldens.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
