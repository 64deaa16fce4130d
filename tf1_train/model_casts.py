"""Models that cast themselves to float16.

TF1 GPU code bases put half precision inside the model function: its own
``variable_scope(..., custom_getter=...)`` stores each variable in float32
and hands the layers a float16 cast, and the function casts its input to
float16 (official ResNet's ``_custom_dtype_getter``, NVIDIA's ConvNets
``model_variable_scope``, tf_cnn_benchmarks' ``--use_fp16`` getter). The
loss scale was not the model's: the training script applied it (official
ResNet's ``--loss_scale``, 128 by default for fp16; NVIDIA's
``--static_loss_scale``; tf_cnn_benchmarks' ``--fp16_loss_scale``), and
tf1_train is now that script.

Such a model trains under ``--precision=fp16``: tf1_train's cast getter is
on the tower's variable scope, outside the model's own, so the model's
getter is handed tf1_train's float16 cast, and casting a float16 tensor to
float16 makes no op: one cast per variable per tower, tf1_train's loss
scale applied once. Under fp32 or bf16 nothing would scale its loss, and
its gradients below float16's smallest subnormal (6e-8) would flush to
zero where its loss-scaled TF1 run kept them (under bf16 its weights would also be
rounded to bfloat16 before its own float16 cast): that run is refused in
one line, before any step. On the TF2 path a ``--tf2_model`` twin that
casts itself is refused the same way: a twin runs in fp32 only there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List

import tensorflow as tf

from tf1_train.errors import UserError

if TYPE_CHECKING:  # the TF2 path imports this module, and no compat.v1 code with it
    from tf1_train.precision import Precision

# The ops that say what a model computes in (the elementwise ones follow).
COMPUTE_OPS = frozenset(
    {
        "MatMul",
        "BatchMatMul",
        "BatchMatMulV2",
        "BatchMatMulV3",
        "Conv2D",
        "Conv3D",
        "DepthwiseConv2dNative",
        "Einsum",
    }
)


def float16_compute(ops: Iterable[tf.Operation]) -> List[tf.Operation]:
    """The matmuls and convolutions among ``ops`` that compute in float16."""
    half = []
    for op in ops:
        if op.type in COMPUTE_OPS and op.outputs[0].dtype == tf.float16:  # V3 has no "T"
            half.append(op)
    return half


def check_towers(ops: Iterable[tf.Operation], precision: Precision, what: str) -> None:
    """Refuses a model computing in float16 by itself in a run that scales
    no loss (``ops``: those building the towers made; ``what``:
    ``--model=...``)."""
    if precision.name == "fp16" or precision.auto is not None:
        return  # tf1_train's loss scale, or v1's under --auto_mixed_precision
    half = float16_compute(ops)
    if half:
        rounded = (
            " and would round its weights to bfloat16 first" if precision.name == "bf16" else ""
        )
        raise UserError(
            f"{_computes_in_float16(what, half[0])} and --precision={precision.name} scales no "
            f"loss{rounded}: {_FLUSH}; run it with --precision=fp16 (dynamic loss scale; "
            "--loss_scale=128 for a fixed one, 1 for none): its own getter can stay "
            "(docs/PRECISION.md)"
        )


def check_twin(ops: Iterable[tf.Operation], what: str) -> None:
    """The TF2 path: a ``--tf2_model`` twin casts its own variables, so it
    runs in fp32 only and nothing scales its loss; computing in float16 by
    itself is refused the same way (``ops``: its traced call's)."""
    half = float16_compute(ops)
    if half:
        raise UserError(
            f"{_computes_in_float16(what, half[0])} and the TF2 path scales no loss for a "
            f"twin: {_FLUSH}; leave the casts out of the twin and run the TF1 model with "
            "--precision=fp16, or build the twin on tf1_train/tf2/layers.py and register it, "
            "so that --precision=fp16 casts and scales it (docs/PRECISION.md)"
        )


_FLUSH = (
    "its gradients below 6e-8 flush to zero (TF1 scripts scaled the loss of such a model: "
    "official ResNet's --loss_scale was 128 for fp16)"
)


def _computes_in_float16(what: str, op: tf.Operation) -> str:
    return (
        f"{what}: computes in float16 by itself ({op.type} {op.name} is float16: its own "
        "float16 casts of its input and weights?)"
    )
