"""tf1_train/kernels.py: an op with no kernel for the run's compute type is
refused when the model is built, in one line, and nothing that has one is."""

import pytest
import tensorflow as tf

from tf1_train import kernels
from tf1_train.errors import UserError


def _ops(dtype, device="/device:CPU:0", op=tf.nn.local_response_normalization):
    with tf.Graph().as_default() as g, tf.device(device):
        op(tf.zeros([2, 4, 4, 3], dtype))
        return g.get_operations()


def test_lrn_has_no_bfloat16_kernel_on_cpu_and_the_line_says_what_runs():
    with pytest.raises(UserError) as e:
        kernels.check(_ops(tf.bfloat16), tf.bfloat16, "--model=m:f")
    line = str(e.value)
    assert line.startswith("--model=m:f: LRN LRN gets bfloat16, which no CPU kernel of LRN takes")
    assert "(they take float16, float32)" in line
    assert line.endswith("or use --precision=fp32 or --precision=fp16")


@pytest.mark.parametrize(
    "dtype, op",
    [
        (tf.float16, tf.nn.local_response_normalization),  # it has a float16 kernel
        (tf.bfloat16, tf.nn.relu),
        (tf.bfloat16, lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME")),
    ],
)
def test_ops_with_a_kernel_for_the_type_pass(dtype, op):
    kernels.check(_ops(dtype, op=op), dtype, "--model=m:f")


def test_float32_runs_and_ops_placed_where_no_kernel_is_registered_are_left_to_tensorflow():
    kernels.check(_ops(tf.float32), tf.float32, "--model=m:f")
    # this CPU-only build registers no GPU kernels: nothing to judge by, no refusal
    kernels.check(_ops(tf.bfloat16, "/device:GPU:0"), tf.bfloat16, "--model=m:f")
    # a traced TF2 function's ops are placed nowhere yet: the replicas' type decides
    with pytest.raises(UserError):
        kernels.check(_ops(tf.bfloat16, ""), tf.bfloat16, "--tf2_model=m:C", "CPU")
