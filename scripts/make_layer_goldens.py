"""Write the goldens that tests/test_compat_layers.py holds
tf1_train.compat.layers to, using the real legacy tf.compat.v1.layers.

Those layers exist on TensorFlow 2.16+ only through tf_keras with
TF_USE_LEGACY_KERAS=1, which pulls the full tensorflow package, so this runs in
a virtual environment of its own, outside the repository:

    python3 -m venv /work/oracle-venv
    /work/oracle-venv/bin/pip install tensorflow==2.21.0 tf_keras==2.21.0
    /work/oracle-venv/bin/python scripts/make_layer_goldens.py [MODEL ...]

It builds every model in tests/compat_layer_models.py with the real
tf.compat.v1.layers, and every model in tests/compat_rnn_models.py with the
real tf.compat.v1.nn.rnn_cell, and writes tests/goldens/compat_layers/ and
tests/goldens/compat_rnn/: goldens.json (names, shapes, dtypes, collections,
versions) and one <model>.npz each (weights, outputs, gradients,
regularization terms, variables after one run of UPDATE_OPS), plus Saver
checkpoints of two models each. A model the real layers cannot run on this
machine is recorded with its error instead. Given model names, it remakes
only those and keeps the other goldens as they were.

Run with TensorFlow 1.15.5 itself (its own environment: LEGACY_LAYERS.md,
"Regenerating the goldens") and model names, it remakes those models of
tests/compat_layer_models.py with TF 1.15.5's own tf.layers on resource
variables, and lists them under "tensorflow_1_15_5" in goldens.json. Where
TF 1.15.5 and tf_keras 2.21 disagree, TF 1.15.5 is what a TF 1.x program
computed: a 5-D batch norm (TF 1.x never fused it) and one seeded Dropout
layer called twice (TF 1.x drew the same mask).
"""

import importlib.util
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
# (models module, goldens directory, models also saved as Saver checkpoints)
SETS = (
    ("compat_layer_models", "compat_layers", ("convnet_train", "reuse_twice", "batchnorm_renorm")),
    ("compat_rnn_models", "compat_rnn", ("stacked", "ptb_unrolled")),
)


def tf115(names: list) -> int:
    """The named layer models from TensorFlow 1.15.5's own tf.layers."""
    import numpy as np
    import tensorflow as tf

    sys.path.insert(0, str(ROOT / "tests"))
    import compat_layer_models as harness

    tf.compat.v1.enable_resource_variables()  # as the layers run here
    out = ROOT / "tests" / "goldens" / "compat_layers"
    report = json.loads((out / "goldens.json").read_text())
    unknown = [n for n in names if n not in harness.MODELS]
    if not names or unknown:
        print(f"error: name the models to remake from {sorted(harness.MODELS)}", file=sys.stderr)
        return 2
    for name in names:
        meta, arrays = harness.measure(tf, tf.compat.v1.layers, name, models=harness.MODELS)
        report["models"][name] = meta
        np.savez_compressed(out / f"{name}.npz", **arrays)
        print(f"compat_layers/{name}: TensorFlow {tf.__version__}")
    made = set(report.get("tensorflow_1_15_5", [])) | set(names)
    report["tensorflow_1_15_5"] = sorted(made)
    (out / "goldens.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return 0


def main() -> int:
    if importlib.util.find_spec("tensorflow_core"):  # TF 1.15's package, not imported yet
        return tf115(sys.argv[1:])
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
    import compat_layer_models as harness

    tf.compat.v1.disable_eager_execution()
    warnings.filterwarnings("ignore", category=UserWarning)  # "tf.layers is deprecated"
    legacy = {"compat_layers": tf.compat.v1.layers, "compat_rnn": tf.compat.v1.nn.rnn_cell}
    versions = {"tensorflow": tf.__version__, "tf_keras": tf_keras.__version__}
    only = set(sys.argv[1:])  # model names: remake only those
    for module_name, directory, checkpoints in SETS:
        models = __import__(module_name)
        out = ROOT / "tests" / "goldens" / directory
        out.mkdir(parents=True, exist_ok=True)
        report = {
            **versions,
            "onednn": os.environ["TF_ENABLE_ONEDNN_OPTS"],
            "checkpoints": list(checkpoints),
            "models": {},
        }
        path = out / "goldens.json"
        before = json.loads(path.read_text()) if path.exists() else {}
        tf115_made = before.get("tensorflow_1_15_5", [])  # TF 1.15.5's stay its own
        if tf115_made:
            report["tensorflow_1_15_5"] = tf115_made
        chosen = [n for n in models.MODELS if (not only or n in only) and n not in tf115_made]
        if before:  # the others' goldens stay as made
            report["models"] = {
                k: v for k, v in before["models"].items()
                if k in models.MODELS and (k in tf115_made or (only and k not in only))
            }  # fmt: skip
        for name in chosen:
            save_to = str(out / f"{name}.ckpt") if name in checkpoints else None
            try:
                meta, arrays = harness.measure(
                    tf, legacy[directory], name, save_to=save_to, models=models.MODELS
                )
            except Exception as e:  # recorded, so the test can say why it skips
                report["models"][name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
                print(f"{name}: the legacy code fails here: {report['models'][name]['error']}")
                continue
            report["models"][name] = meta
            np.savez_compressed(out / f"{name}.npz", **arrays)
            print(f"{directory}/{name}: {len(meta['variables'])} variables, {len(arrays)} arrays")
        report["models"] = dict(sorted(report["models"].items()))
        (out / "goldens.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
