"""The scanner on models that cast themselves to float16: each spelling of the
getter the legacy code bases use is found, tf1_train's own getter and a
bfloat16 one are not, and NVIDIA's ``_ref`` line is one breaking finding."""

import pathlib

import pytest

from tf1_train.port import scan as scanner
from tf1_train.port import scan_cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
TF = "import tensorflow as tf\n"
GETTER = "float16-custom-getter"

METHOD = (  # official r1 ResNet: a method, casting to the dtype asked for
    TF + "CASTABLE = (tf.float16,)\n"
    "class Model:\n"
    "    def _getter(self, getter, name, shape=None, dtype=tf.float32, *args, **kwargs):\n"
    "        if dtype in CASTABLE:\n"
    "            var = getter(name, shape, tf.float32, *args, **kwargs)\n"
    "            return tf.cast(var, dtype=dtype, name=name + '_cast')\n"
    "        return getter(name, shape, dtype, *args, **kwargs)\n"
)
KWARGS = (  # tf_cnn_benchmarks: the requested dtype read from kwargs
    TF + "def inner(getter, *args, **kwargs):\n"
    "    requested = kwargs['dtype']\n"
    "    if requested == tf.float16:\n"
    "        kwargs['dtype'] = tf.float32\n"
    "    var = getter(*args, **kwargs)\n"
    "    return tf.cast(var, requested) if var.dtype != requested else var\n"
)
SCOPE = (  # a getter from elsewhere, under a scope asking for float16
    TF + "from mymodels import keep_float32\n"
    "with tf.compat.v1.variable_scope('m', dtype=tf.float16, custom_getter=keep_float32):\n"
    "    pass\n"
)
TRAINER = (  # tf1_train's own: casts to the precision it was built for, not to the request
    TF + "HALF = tf.float16\n"
    "def cast_getter(compute):\n"
    "    def getter(getter, *args, **kwargs):\n"
    "        return tf.cast(getter(*args, **kwargs), compute)\n"
    "    return getter\n"
)
BFLOAT16 = METHOD.replace("float16", "bfloat16")  # TPU code: no loss scale needed
STORAGE = (  # NVIDIA BERT's, alone in its file: float16 is named only by its callers
    TF + "def float32_variable_storage_getter(getter, name, shape=None, dtype=None,\n"
    "                                    initializer=None, regularizer=None,\n"
    "                                    trainable=True, *args, **kwargs):\n"
    "    storage_dtype = tf.float32 if trainable else dtype\n"
    "    variable = getter(name, shape, dtype=storage_dtype, initializer=initializer,\n"
    "                      regularizer=regularizer, trainable=trainable, *args, **kwargs)\n"
    "    if trainable and dtype != tf.float32:\n"
    "        variable = tf.cast(variable, dtype)\n"
    "    return variable\n"
)


@pytest.mark.parametrize(
    "source, lines",
    [(METHOD, [4]), (KWARGS, [2]), (SCOPE, [3]), (STORAGE, [2]), (TRAINER, []), (BFLOAT16, [])],
    ids=["method", "kwargs", "scope", "storage getter alone", "trainer", "bfloat16"],
)
def test_each_float16_getter_spelling_is_found_and_no_other_getter(tmp_path, source, lines):
    path = tmp_path / "model.py"
    path.write_text(source)
    report = scanner.scan([str(path)])
    assert [f.line for f in report.findings if f.rule == GETTER] == lines
    assert scan_cli.exit_status(report) == 0  # it runs as written: only --precision=fp16 to give


def test_the_user_model_that_casts_itself_is_found_at_its_getter():
    path = ROOT / "tests" / "user_models" / "self_cast.py"
    found = [f for f in scanner.scan([str(path)]).findings if f.rule == GETTER]
    lines = path.read_text().splitlines()
    getter = [n for n, line in enumerate(lines, 1) if line.startswith("def float32_storage(")]
    assert [f.line for f in found] == getter
    assert "--precision=fp16" in found[0].fix and "--loss_scale" in found[0].fix


@pytest.mark.parametrize(
    "source, count",
    [
        (TF + "cast._ref = var._ref\n", 1),  # NVIDIA's line: one finding, not two
        (TF + "handle = var._ref()\n", 1),  # tf_cnn_benchmarks' staged variable reads it
        (TF + "class V:\n    def _ref(self):\n        return self._ref_value\n", 0),
        ("cast._ref = var._ref\n", 0),  # no TensorFlow in the file: not a variable
    ],
)
def test_ref_reads_and_writes_break_once_per_statement(tmp_path, source, count):
    path = tmp_path / "getter.py"
    path.write_text(source)
    report = scanner.scan([str(path)])
    assert sum(f.rule == "variable-ref" for f in report.findings) == count
    assert scan_cli.exit_status(report) == (1 if count else 0)
