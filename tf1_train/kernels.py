"""Ops a model makes that have no kernel for the type its run computes in.

A model written for float32 (or for a GPU) can hold an op whose CPU kernels
exist in float32 and float16 only: the CIFAR-10 tutorial's local response
normalisation (``LRN``) has none for bfloat16. Under ``--precision=bf16``
the towers feed it bfloat16, and TensorFlow finds out only when the first
step places the graph, with a traceback and after train_dir was written.
This finds it as the model is built, from TensorFlow's kernel registry, and
says which op, what its kernels take and what would run. Both paths use it
(no ``compat.v1`` here). Only ops holding the compute type are looked at,
and only on a device type that has kernels for the op at all (a GPU op in
a CPU-only build is left to TensorFlow), so a model that runs is never
refused.
"""

from __future__ import annotations

import functools
from typing import Iterable, List, Optional

import tensorflow as tf

try:  # no public API lists kernels; without it, TensorFlow's own error at the first step stays
    from tensorflow.python.framework import kernels as registry
except ImportError:  # pragma: no cover - a TensorFlow that moved it
    registry = None

from tf1_train.config import COMPUTE_TYPES
from tf1_train.errors import UserError


@functools.cache
def _kernels(op_type: str, device_type: str) -> tuple:
    """Each kernel's type constraints: ((attr name, allowed enums), ...)."""
    found = registry.get_registered_kernels_for_op(op_type).kernel
    return tuple(
        tuple((c.name, frozenset(c.allowed_values.list.type)) for c in k.constraint)
        for k in found
        if k.device_type == device_type
    )


def _types(op: tf.Operation, attr: str) -> List[int]:
    value = op.node_def.attr.get(attr)
    if value is None:
        return []
    return [value.type] if value.type else list(value.list.type)


def _fits(constraints: tuple, op: tf.Operation) -> bool:
    return all(set(_types(op, name)) <= allowed for name, allowed in constraints)


def _holds(op: tf.Operation, enum: int) -> Optional[str]:
    """The attr of ``op`` that holds the type ``enum``, if any."""
    for name in op.node_def.attr:
        if enum in _types(op, name):
            return name
    return None


def check(ops: Iterable[tf.Operation], compute: tf.DType, what: str, device_type: str = "") -> None:
    """Refuses, in one line, the first op among ``ops`` that holds ``compute``
    and has kernels on its device type, none of which takes it.
    ``device_type``: for ops placed nowhere yet (a traced TF2 function)."""
    if compute == tf.float32 or registry is None:
        return
    enum = compute.as_datatype_enum
    for op in ops:
        attr = _holds(op, enum)
        if attr is None:
            continue
        device = tf.DeviceSpec.from_string(op.device).device_type or device_type or "CPU"
        kernels = _kernels(op.type, device)
        if kernels and not any(_fits(k, op) for k in kernels):
            raise UserError(_line(op, attr, device, kernels, compute, what))


def _line(op, attr: str, device: str, kernels: tuple, compute: tf.DType, what: str) -> str:
    takes = {t for k in kernels for name, allowed in k if name == attr for t in allowed}
    names = sorted(tf.as_dtype(t).name for t in takes)
    runs = [p for p, t in COMPUTE_TYPES.items() if tf.as_dtype(t).as_datatype_enum in takes]
    other = " or ".join(f"--precision={p}" for p in runs) or "--precision=fp32"
    return (
        f"{what}: {op.type} {op.name} gets {compute.name}, which no {device} kernel of "
        f"{op.type} takes (they take {', '.join(names)}): compute that op in float32 in the "
        f"model (cast its input to float32, its output back to {compute.name}), or use {other}"
    )
