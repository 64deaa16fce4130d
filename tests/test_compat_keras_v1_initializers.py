"""``tf.compat.v1.keras.initializers`` after install(): TF 1.15's v1
``init_ops`` classes (tf1_train/compat/_keras_v1_initializers.py), not Keras
3's, so an unseeded one follows the graph seed as on TF 1.15 (Mozilla's
DeepSpeech builds its weights with ``VarianceScaling`` so). Measured on TF
1.15.5, 2026-12-07: every constant below."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from conftest import COMPAT, ROOT, run_cli

from tf1_train.compat import _keras_v1_initializers

SCRIPT = f"{ROOT}/tests/legacy_scripts/keras_v1_initializers_seeded.py"
# TF 1.15.5: the first row of each [3, 4] variable, graph seed 4568
TF115_ROWS = {
    "w": "-0.836818 0.425639 -0.451737 0.783528",  # VarianceScaling(fan_avg, uniform)
    "g": "0.519856 -0.651268 -0.115135 -0.056019",  # glorot_uniform()
    "h": "-0.431319 -0.274565 -0.329070 -0.311264",  # he_normal()
    "u": "0.047192 0.045739 0.015618 -0.037156",  # RandomUniform()
    "n": "-0.076353 -0.020936 -0.052672 0.053407",  # RandomNormal()
    "t": "0.018098 0.041999 -0.056288 -0.007022",  # tf.keras.initializers.TruncatedNormal()
}
FAN_IN = {"mode": "fan_in", "seed": None, "dtype": "float32"}
TF115_CONFIGS = {
    "RandomNormal": {"mean": 0.0, "stddev": 0.05, "seed": None, "dtype": "float32"},
    "TruncatedNormal": {"mean": 0.0, "stddev": 0.05, "seed": None, "dtype": "float32"},
    "RandomUniform": {"minval": -0.05, "maxval": 0.05, "seed": None, "dtype": "float32"},
    "Orthogonal": {"gain": 1.0, "seed": None, "dtype": "float32"},
    "Identity": {"gain": 1.0, "dtype": "float32"},
    "Constant": {"value": 0, "dtype": "float32"},
    "glorot_normal": {"seed": None, "dtype": "float32"},
    "he_uniform": {**FAN_IN, "scale": 2.0, "distribution": "uniform"},
    "lecun_normal": {**FAN_IN, "scale": 1.0, "distribution": "truncated_normal"},
}


def test_without_install_the_path_is_keras_3s():
    assert tf.compat.v1.keras.initializers.VarianceScaling is keras.initializers.VarianceScaling


def test_after_install_the_names_and_defaults_are_tf_1_15s(installed):
    inits = tf.compat.v1.keras.initializers
    assert sorted(n for n in dir(inits) if not n.startswith("_")) == sorted(
        [*_keras_v1_initializers.NAMES, "serialize", "deserialize", "get"]
    )  # TF 1.15.5's 29 names
    assert {name: getattr(inits, name)().get_config() for name in TF115_CONFIGS} == TF115_CONFIGS
    assert inits.VarianceScaling().get_config()["distribution"] == "truncated_normal"
    assert inits.normal is inits.RandomNormal and inits.uniform is inits.RandomUniform
    # keras and TF 2's tf.keras keep Keras 3's; Keras 3 layers take the v1 ones
    assert keras.initializers.VarianceScaling is not inits.VarianceScaling
    assert tf.keras.initializers.VarianceScaling is keras.initializers.VarianceScaling
    assert tf.compat.v1.keras.layers.Dense is keras.layers.Dense
    layer = keras.layers.Dense(3, kernel_initializer=inits.glorot_uniform(seed=1))
    assert layer(np.ones((2, 4), np.float32)).shape == (2, 3)
    from tensorflow.compat.v1.keras.initializers import he_normal

    assert he_normal is inits.he_normal


def test_after_install_get_serialize_deserialize_are_tf_1_15s(installed):
    inits = tf.compat.v1.keras.initializers
    assert type(inits.get("glorot_uniform")).__name__ == "GlorotUniform"
    assert inits.get("he_normal").get_config()["scale"] == 2.0 and inits.get(None) is None
    assert inits.get(inits.Zeros) is inits.Zeros
    serialized = inits.serialize(inits.VarianceScaling(scale=2.0))
    config = {**FAN_IN, "scale": 2.0, "distribution": "truncated_normal"}
    assert serialized == {"class_name": "VarianceScaling", "config": config}
    assert inits.deserialize(serialized).get_config() == serialized["config"]
    assert inits.get({"class_name": "RandomUniform", "config": {}}).get_config()["maxval"] == 0.05
    with pytest.raises(ValueError, match="Unknown initializer:nope"):
        inits.get("nope")
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: 3"):
        inits.get(3)


def test_uninstall_gives_keras_3s_back(installed):
    import tf1_train.compat

    tf1_train.compat.uninstall()
    assert tf.compat.v1.keras.initializers.VarianceScaling is keras.initializers.VarianceScaling
    tf1_train.compat.install()


def test_graph_seeded_draws_are_tf_1_15_5s_under_v1_seeds(tmp_path):
    out = run_cli(["--v1", "--v1_seeds", "--v1_variables", SCRIPT], module=COMPAT, cwd=tmp_path,
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    rows = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    assert rows == TF115_ROWS


def test_the_scan_says_a_seeded_v1_keras_initializer_works_under_the_runner(tmp_path):
    from tf1_train.port import scan

    program = tmp_path / "init.py"
    program.write_text(
        "import keras\nimport tensorflow as tf\n"
        "a = tf.keras.initializers.glorot_uniform(seed=1)\n"
        "b = keras.initializers.GlorotUniform(seed=3)\n"
    )
    for options, first in (({}, "changes numbers"), ({"v1": True}, "works")):
        found = [f for f in scan.scan([str(program)], **options).findings]
        verdicts = [(f.line, f.severity) for f in found if f.rule == "keras-initializer-seed"]
        assert verdicts == [(3, first), (4, "changes numbers")]


KERAS_SAVE = """import numpy as np
import tensorflow as tf
tf.enable_eager_execution()
init = tf.keras.initializers.he_normal(seed=1)
dense = tf.keras.layers.Dense(3, kernel_initializer=init)
model = tf.keras.Sequential([tf.keras.Input((4,)), dense])
model.save("m.keras")
again = tf.keras.models.load_model("m.keras")
x = np.ones((1, 4), np.float32)
print("same =", bool(np.array_equal(again(x).numpy(), model(x).numpy())))
print("class =", type(again.layers[0].kernel_initializer).__name__)
"""


def test_a_keras_3_model_built_with_them_saves_and_loads_back(tmp_path):
    """Keras 3's own VarianceScaling takes no ``dtype``: without the
    registration the saved model did not load (measured 2026-12-07)."""
    (tmp_path / "save.py").write_text(KERAS_SAVE)
    out = run_cli(["--v1", str(tmp_path / "save.py")], module=COMPAT, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "same = True" in out.stdout and "class = VarianceScaling" in out.stdout
