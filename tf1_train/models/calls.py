"""How a model is called: ``fn(images, is_training, num_classes)``, and with
``labels=`` when its function has a parameter of that name.

Some TF1 networks need the labels in their forward pass, not only in the
loss: a capsule network's decoder reconstructs the image from the true
class's capsule (its reconstruction term is part of the loss), ArcFace-style
heads add their margin to the true class's logit, a center loss pulls each
example's features towards its class's center. An Estimator ``model_fn``
received ``labels`` for that; tf1_train passes them the same way, as
Estimator did by mode: each tower gets its own batch's labels in training,
evaluation gets the test batch's labels (Estimator's EVAL), and an exported
SavedModel is built with ``labels=None`` (PREDICT: nothing to serve them).
The TF2 twin is called as ``module(images, training=..., labels=...)`` by
the same rule.
"""

from __future__ import annotations

import inspect
from typing import Callable, List, Optional

import tensorflow as tf

LABELS = "labels"


def parameters(fn: Optional[Callable]) -> List[inspect.Parameter]:
    """``fn``'s parameters (none for None or a callable without a signature);
    ``inspect.signature`` follows the ``__wrapped__`` of tf1_train's checking
    wrapper to the user's function."""
    if fn is None:
        return []
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def takes_labels(fn: Optional[Callable]) -> bool:
    """Whether ``fn`` (a model function, or a twin's ``__call__``/``call``)
    has a parameter named ``labels``."""
    return any(p.name == LABELS and p.kind != p.VAR_POSITIONAL for p in parameters(fn))


def call_model(
    model_fn: Callable,
    images: tf.Tensor,
    is_training: bool,
    num_classes: int,
    labels: Optional[tf.Tensor] = None,
):
    """``model_fn(images, is_training, num_classes[, labels=labels])``: the
    labels only to a function that asks for them, so every other model is
    called exactly as before."""
    if takes_labels(model_fn):
        return model_fn(images, is_training, num_classes, labels=labels)
    return model_fn(images, is_training, num_classes)


def twin_takes_labels(module) -> bool:
    """A TF2 twin's call has a ``labels`` parameter: a ``tf.Module``'s
    ``__call__``, or a Keras model's ``call`` (its ``__call__`` passes the
    keyword on)."""
    keras_call = getattr(module, "call", None)
    return takes_labels(keras_call) or takes_labels(type(module).__call__)
