"""Write tests/goldens/contrib_learn_datasets.json (and .pkl, a DataSet TF
1.15's class pickled): what TF 1.15's own MNIST
reader (``tensorflow.contrib.learn.python.learn.datasets``: ``mnist``,
``base``; the tutorials' ``input_data.read_data_sets``) and the Mechanics 101
model (``tensorflow/examples/tutorials/mnist/mnist.py``) made of the cases
of tests/contrib_learn_datasets_cases.py, which
tests/test_compat_contrib_learn_datasets.py holds tf1_train.compat's to.

That code needs nothing TensorFlow 2.21 lacks (gfile, dtypes, random_seed,
deprecation are still there): take it from the TF 1.15 wheel (it stays
outside the repository) and run it here under its own module paths:

    pip download --no-deps --python-version 3.7 --only-binary=:all: \\
        tensorflow-cpu==1.15.0 -d /tmp/tf115
    unzip -o /tmp/tf115/tensorflow_cpu-1.15.0-*.whl \\
        'tensorflow_core/contrib/learn/python/learn/datasets/*' \\
        'tensorflow_core/examples/tutorials/mnist/*' -d /tmp/tf115
    .venv/bin/python scripts/make_contrib_learn_datasets_goldens.py /tmp/tf115/tensorflow_core
"""

import importlib.util
import json
import pathlib
import sys
import tempfile
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "goldens" / "contrib_learn_datasets.json"
PACKAGE = "tensorflow.contrib.learn.python.learn.datasets"
sys.path.insert(0, str(ROOT / "tests"))


def _load(name: str, path: pathlib.Path, package: bool = False) -> types.ModuleType:
    locations = [str(path.parent)] if package else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_tf115(core: pathlib.Path):
    """TF 1.15's datasets package (its ``mnist`` and ``base``) and tutorial model."""
    import tensorflow  # noqa: F401  (the real package: gfile, random_seed, deprecation)

    parts = PACKAGE.split(".")
    for i in range(2, len(parts)):  # tensorflow.contrib ... .learn: empty packages
        module = types.ModuleType(".".join(parts[:i]))
        module.__path__ = []
        sys.modules[module.__name__] = module
    source = core / "contrib" / "learn" / "python" / "learn" / "datasets"
    datasets = _load(PACKAGE, source / "__init__.py", package=True)
    model = _load("tf115_tutorial_mnist", core / "examples" / "tutorials" / "mnist" / "mnist.py")
    return datasets, datasets.mnist, datasets.base, model


def main(argv) -> int:
    import contrib_learn_datasets_cases as cases  # the inputs, shared with the test

    modules = load_tf115(pathlib.Path(argv[0]))
    with tempfile.TemporaryDirectory() as directory:
        goldens = cases.compute(*modules, directory)
    dataset, goldens["pickled"] = cases.pickled(modules[1])
    GOLDEN.with_suffix(".pkl").write_bytes(dataset)
    GOLDEN.write_text(json.dumps(goldens, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} and its .pkl")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
