"""What a model returns: its logits, or ``(logits, end_points)`` for a loss
that uses the end points.

tf-slim's nets return the logits with a dict of named tensors, and TF1
training scripts built loss terms from it: slim's
``train_image_classifier.py`` adds 0.4 x the cross-entropy of Inception v3's
(and NASNet's, PNASNet's) ``end_points['AuxLogits']``, tf_cnn_benchmarks
passed its models' ``extra_info`` (the aux logits) to the loss. tf1_train
takes the pair when ``--loss`` has a third parameter, ``fn(labels, logits,
end_points)``; without one the pair is refused in one line, since the terms
it may feed would be lost. Evaluation and export take the logits.
"""

from __future__ import annotations

import inspect
from typing import Callable, Dict, Optional, Tuple

import tensorflow as tf

from tf1_train.errors import UserError
from tf1_train.models import calls

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def is_pair(out) -> bool:
    """``(logits tensor, dict)``, as tf-slim's nets return."""
    return (
        isinstance(out, tuple)
        and len(out) == 2
        and isinstance(out[0], (tf.Tensor, tf.Variable))
        and isinstance(out[1], dict)
    )


def logits_of(out) -> tf.Tensor:
    """The logits of what a model returned (evaluation, export)."""
    return out[0] if is_pair(out) else out


def takes_end_points(loss_fn: Optional[Callable]) -> bool:
    """Whether ``loss_fn`` is called as ``fn(labels, logits, end_points)``:
    a third positional parameter (or ``*args``), or one named end_points."""
    params = calls.parameters(loss_fn)
    if any(p.kind == p.VAR_POSITIONAL or p.name == "end_points" for p in params):
        return True
    return sum(p.kind in _POSITIONAL for p in params) >= 3


def split(out, loss_fn: Optional[Callable], what: str) -> Tuple[tf.Tensor, Optional[Dict]]:
    """(logits, end_points or None) for the tower's loss; the pair without a
    loss that takes its end points is one error line."""
    check_pairing(is_pair(out), loss_fn, what)
    return out if is_pair(out) else (out, None)


def check_pairing(has_end_points: bool, loss_fn: Optional[Callable], what: str) -> None:
    """A model that returns end points needs a loss that takes them, and
    the reverse: one error line otherwise."""
    takes = takes_end_points(loss_fn)
    if takes and not has_end_points:
        raise UserError(
            f"{what}: returned logits alone, and --loss takes end_points: return "
            "(logits, end_points), or drop the loss's third parameter"
        )
    if has_end_points and not takes:
        raise UserError(
            f"{what}: returned (logits, end_points), as tf-slim's nets do: return the logits "
            "alone, or, if your TF1 loss used end_points (Inception's AuxLogits), give "
            "--loss=package.module:function taking (labels, logits, end_points)"
        )


def call_loss(loss_fn: Callable, labels, logits, end_points: Optional[Dict]):
    """``loss_fn(labels, logits[, end_points])``."""
    if end_points is None:
        return loss_fn(labels, logits)
    return loss_fn(labels, logits, end_points)


def float32_end_points(end_points: Optional[Dict]) -> Optional[Dict]:
    """The end points a loss sees in float32, as the logits (--precision)."""
    if end_points is None:
        return None
    return {
        k: tf.cast(v, tf.float32) if hasattr(v, "dtype") and v.dtype.is_floating else v
        for k, v in end_points.items()
    }
