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
one line, before any step. On the TF2 path a ``--tf2_model`` twin is
given images of the run's type and casts its weights to theirs: one that
casts itself to float16 runs under ``--precision=fp16`` only, as here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List

import tensorflow as tf

from tf1_train.config import COMPUTE_TYPES
from tf1_train.errors import UserError

if TYPE_CHECKING:  # the TF2 path imports this module, and no compat.v1 code with it
    from tf1_train.precision import Precision

# The ops that say what a model computes in (the elementwise ones follow).
COMPUTE_OPS = frozenset(
    {
        "MatMul",
        "SparseMatMul",  # tf.matmul(bfloat16, float32) silently makes one, float32 out
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


def check_twin(ops: Iterable[tf.Operation], what: str, compute: tf.DType = tf.float32) -> None:
    """The TF2 path: a ``--tf2_model`` twin is given images of the run's
    compute type and casts its weights to theirs as it reads them (``ops``:
    its traced call's). Refused in one line: computing in float16 by itself
    where nothing scales its loss (fp32, bf16), and computing in none of the
    run's type (it cast its images back to float32); a twin computing partly
    in another type gets one line."""
    ops = list(ops)
    flag = _FLAGS[compute.name]
    half = float16_compute(ops)
    if half and compute != tf.float16:
        raise UserError(
            f"{_computes_in_float16(what, half[0])} and --precision={flag} scales no loss: "
            f"{_FLUSH}; run it with --precision=fp16, which scales its loss (docs/PRECISION.md)"
        )
    computing = [op for op in ops if op.type in COMPUTE_OPS]
    other = [op for op in computing if op.outputs[0].dtype != compute]
    if not other:
        return
    op, got = other[0], other[0].outputs[0].dtype.name
    if len(other) == len(computing):
        why = ""
        if op.type == "SparseMatMul":  # no error from TensorFlow: the trap to name
            why = f", made by tf.matmul of {compute.name} input and a float32 weight"
        raise UserError(
            f"{what}: computes in {got} though --precision={flag} gives it {compute.name} "
            f"images ({op.type} {op.name} is {got}{why}): cast each weight to the images' "
            "type as you read it (tf.cast(self.w, x.dtype)), and not the images to float32, "
            "or use --precision=fp32 (docs/PRECISION.md)"
        )
    print(
        f"note: {what}: {len(other)} of its {len(computing)} matmuls and convolutions compute "
        f"in {got}, not {compute.name} ({op.type} {op.name}): as the twin casts them",
        flush=True,
    )


def twin_type_failure(what: str, compute: tf.DType, failure: str) -> str:
    """A twin that traces on float32 images and fails on the run's type."""
    flag = _FLAGS[compute.name]
    return (
        f"{what}: fails on the {compute.name} images --precision={flag} gives it, not on "
        f"float32 ones: {failure}; a twin computes in its images' type: cast each weight "
        "to it as you read it (tf.cast(self.w, x.dtype), as tf1_train/tf2/layers.py's read "
        "does), or use --precision=fp32 (docs/PRECISION.md)"
    )


_FLAGS = {dtype: flag for flag, dtype in COMPUTE_TYPES.items()}
_FLUSH = (
    "its gradients below 6e-8 flush to zero (TF1 scripts scaled the loss of such a model: "
    "official ResNet's --loss_scale was 128 for fp16)"
)


def _computes_in_float16(what: str, op: tf.Operation) -> str:
    return (
        f"{what}: computes in float16 by itself ({op.type} {op.name} is float16: its own "
        "float16 casts of its input and weights?)"
    )
