"""Write tests/goldens/hparams.json: the outcomes of tests/hparams_cases.py's
programs run with TF 1.15's own ``tf.contrib.training.HParams``, which
tests/test_compat_contrib_hparams.py holds tf1_train.compat's to.

TF 1.15 does not install on today's Python, but its ``hparam.py`` is pure
Python; take it from the wheel (it stays outside the repository) and run
this with any Python that has six:

    pip download --no-deps --python-version 3.7 --only-binary=:all: \\
        tensorflow-cpu==1.15.0 -d /tmp/tf115
    unzip -o /tmp/tf115/tensorflow_cpu-1.15.0-*.whl \\
        'tensorflow_core/contrib/training/python/training/hparam.py' -d /tmp/tf115
    python scripts/make_hparams_goldens.py \\
        /tmp/tf115/tensorflow_core/contrib/training/python/training/hparam.py

Its TensorFlow imports (the HParamDef proto, a deprecation decorator, the
proto registry) are stubbed: none of them is on the paths the cases take.
"""

import importlib.util
import json
import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _stub_tensorflow() -> None:
    """Just enough ``tensorflow`` for hparam.py to import."""
    training = "tensorflow.contrib.training.python.training"
    for name in ("tensorflow", "tensorflow.contrib", "tensorflow.contrib.training",
                 "tensorflow.contrib.training.python", training, "tensorflow.python",
                 "tensorflow.python.framework", "tensorflow.python.util"):  # fmt: skip
        sys.modules[name] = types.ModuleType(name)
    sys.modules[training].hparam_pb2 = types.SimpleNamespace(HParamDef=object)
    sys.modules["tensorflow.python.framework"].ops = types.SimpleNamespace(
        register_proto_function=lambda *a, **k: None
    )
    util = sys.modules["tensorflow.python.util"]
    util.compat = types.SimpleNamespace()
    util.deprecation = types.SimpleNamespace(deprecated=lambda *a, **k: lambda f: f)


def main() -> int:
    if len(sys.argv) != 2 or not pathlib.Path(sys.argv[1]).is_file():
        print("error: give the path of TF 1.15's hparam.py (see this script's docstring)",
              file=sys.stderr)  # fmt: skip
        return 2
    _stub_tensorflow()
    spec = importlib.util.spec_from_file_location("tf115_hparam", sys.argv[1])
    legacy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(legacy)
    sys.path.insert(0, str(ROOT / "tests"))
    import hparams_cases

    cases = {
        name: hparams_cases.run(legacy.HParams, kwargs, operations)
        for name, (kwargs, operations) in hparams_cases.CASES.items()
    }
    out = ROOT / "tests" / "goldens" / "hparams.json"
    report = {"tensorflow": "1.15.0", "source": "contrib/training/python/training/hparam.py"}
    out.write_text(json.dumps({**report, "cases": cases}, indent=1, sort_keys=True) + "\n")
    print(f"{out}: {len(cases)} cases, {sum(len(c) for c in cases.values())} outcomes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
