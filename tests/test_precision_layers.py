"""--precision=bf16|fp16 with layers that ask for their weights in the
input's type: v1's tf.layers did (a layer's dtype is its first input's),
and so do tf1_train.compat.layers and hand-written ``get_variable(...,
dtype=inputs.dtype)``. tf1_train's getter stores them in float32 and hands
them back cast, as tf_cnn_benchmarks' getter did: before, such a model
trained and saved bfloat16/float16 variables, and its checkpoint did not
restore into an fp32 run.
"""

import pytest
import tensorflow as tf

from tests.conftest import run_cli

MODEL = "tests.port_models:tf1_model"  # conv, batch norm and dense on tf1_train.compat.layers
v1 = tf.compat.v1


def _dtypes(train_dir):
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(train_dir)))
    found = reader.get_variable_to_dtype_map().items()
    return {k: v for k, v in found if "/" in k and not k.startswith("loss_scale/")}


@pytest.mark.parametrize("precision, compute", [("bf16", tf.bfloat16), ("fp16", tf.float16)])
def test_weights_asked_for_in_the_half_type_are_float32_variables(tmp_path, precision, compute):
    from tests.port_models import tf1_model
    from tf1_train import precision as precisionlib

    with tf.Graph().as_default():
        images = tf.zeros([2, 8, 8, 1])
        with precisionlib.tower_scope(precisionlib.Precision(precision)):
            logits = tf1_model(tf.cast(images, compute), True, 10)
        variables = v1.global_variables()
        ops = tf.compat.v1.get_default_graph().get_operations()
    assert logits.dtype == compute
    assert sorted(v.op.name for v in variables if "kernel" in v.op.name) == [
        "conv/kernel", "dense/kernel"
    ]  # fmt: skip
    assert all(v.dtype.base_dtype == tf.float32 for v in variables)
    computing = [o for o in ops if o.type in ("Conv2D", "MatMul")]
    assert len(computing) == 2 and all(o.outputs[0].dtype == compute for o in computing)


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_its_checkpoint_is_float32_and_resumes_in_fp32(tmp_path, precision):
    args = [f"--model={MODEL}", f"--train_dir={tmp_path}", "--batch_size=8"]
    first = run_cli([*args, f"--precision={precision}", "--train_steps=2"])
    assert first.returncode == 0, first.stderr[-3000:]
    assert set(_dtypes(tmp_path).values()) == {tf.float32}
    second = run_cli([*args, "--train_steps=4"])
    assert second.returncode == 0, second.stderr[-3000:]
    assert "resum" in second.stdout
