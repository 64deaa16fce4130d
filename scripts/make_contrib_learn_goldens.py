"""Write tests/goldens/contrib_learn_text.json and the vocabularies
contrib_learn_vocab*.pkl: what TF 1.15's own ``tf.contrib.learn``
preprocessing (``VocabularyProcessor``, ``CategoricalVocabulary``,
``ByteProcessor``, ``tokenizer``) made of the inputs of
tests/test_compat_contrib_learn.py, which holds tf1_train.compat's to them.

That code is pure Python: take it from the TF 1.15 wheel (it stays outside
the repository) and run it on TensorFlow 2.21 under its own module paths,
so that the pickles name them as a TF1 program's did (``ndarray.tostring``,
which NumPy 2 removed, put back for it):

    pip download --no-deps --python-version 3.7 --only-binary=:all: \\
        tensorflow-cpu==1.15.0 -d /tmp/tf115
    unzip -o /tmp/tf115/tensorflow_cpu-1.15.0-*.whl \\
        'tensorflow_core/contrib/learn/python/learn/preprocessing/*' -d /tmp/tf115
    .venv/bin/python scripts/make_contrib_learn_goldens.py /tmp/tf115/tensorflow_core/contrib

With ``--check FILE``, it restores a vocabulary pickled by tf1_train.compat
with TF 1.15's classes instead and prints its words.
"""

import importlib.util
import json
import pathlib
import pickle
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "tests" / "goldens"
PACKAGE = "tensorflow.contrib.learn.python.learn.preprocessing"
sys.path.insert(0, str(ROOT / "tests"))


def load_tf115(contrib: pathlib.Path) -> types.ModuleType:
    """TF 1.15's ``text`` module, loaded under its own name."""
    import tensorflow  # noqa: F401  (the real package: its deprecation and gfile)

    source = contrib / "learn" / "python" / "learn" / "preprocessing"
    parts = PACKAGE.split(".")
    for i in range(2, len(parts) + 1):  # tensorflow.contrib ... .preprocessing: empty packages
        name = ".".join(parts[:i])
        module = types.ModuleType(name)
        module.__path__ = [str(source)] if name == PACKAGE else []
        sys.modules[name] = module
    for leaf in ("categorical_vocabulary", "text"):
        name = f"{PACKAGE}.{leaf}"
        spec = importlib.util.spec_from_file_location(name, source / f"{leaf}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    text = sys.modules[f"{PACKAGE}.text"]
    text.np = _numpy_with_tostring()
    return text


def _numpy_with_tostring() -> types.ModuleType:
    """NumPy for that source, with what NumPy 2 removed and ``ByteProcessor``
    calls: ``ndarray.tostring`` (``tobytes`` now), on ``trim_zeros``' result."""
    import numpy as np

    class Trimmed(np.ndarray):
        def tostring(self):
            return self.tobytes()

    shim = types.ModuleType("numpy")
    shim.__dict__.update(np.__dict__)
    shim.trim_zeros = lambda a, trim="fb": np.trim_zeros(a, trim).view(Trimmed)
    return shim


def main(argv) -> int:
    text = load_tf115(pathlib.Path(argv[0]))
    if len(argv) == 3 and argv[1] == "--check":
        restored = text.VocabularyProcessor.restore(argv[2])
        print(type(restored).__module__, sorted(restored.vocabulary_._mapping.items()))
        return 0
    import contrib_learn_cases as cases  # the inputs, shared with the test

    goldens = cases.compute(text)
    for name, processor in cases.fitted(text).items():
        (GOLDENS / f"contrib_learn_{name}.pkl").write_bytes(pickle.dumps(processor))
    path = GOLDENS / "contrib_learn_text.json"
    path.write_text(json.dumps(goldens, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path} and {len(cases.fitted(text))} vocabularies")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
