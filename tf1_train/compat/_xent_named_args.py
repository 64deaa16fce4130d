"""TF 1.x's refusal of positional arguments to three cross-entropy ops, after install().

TF 0.x's ``tf.nn.softmax_cross_entropy_with_logits(logits, labels)`` took
the logits first. TF 1.0 put the labels first and, so that no old call would
swap the two without a word, gave ``softmax_cross_entropy_with_logits``,
``sparse_softmax_cross_entropy_with_logits`` and
``sigmoid_cross_entropy_with_logits`` a first ``_sentinel`` parameter:
any positional argument raised ``ValueError: Only call `NAME` with named
arguments (labels=..., logits=..., ...)``. TensorFlow 2.21's
``tf.compat.v1.nn`` versions have no sentinel and take ``(labels, logits)``
by position, so a TF 0.x call runs with the two swapped: another loss and
no error for the softmax and sigmoid ones (pathak22/noreward-rl, a TF 0.12
code base, calls the sparse one so; it then fails with a rank error that
does not say why). install() puts TF 1.x's check back on the v1 API's
names, so the program stops where TF 1.15 stopped it, with TF 1.15's
message. TensorFlow 2's own ``tf.nn`` versions (labels first, by position
too) are left as they are.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable

NAMES = (
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
)


def install(set_attribute, v1_apis: Iterable) -> None:
    """The check on ``nn`` of every copy of the v1 API (``v1_apis``: modules)."""
    for api in v1_apis:
        nn = getattr(api, "nn", None)
        for name in NAMES if nn is not None else ():
            current = getattr(nn, name, None)
            if current is not None and not hasattr(current, "_tf1_train_original"):
                set_attribute(nn, name, _named_only(current, name))


def _named_only(original: Callable, name: str) -> Callable:
    @functools.wraps(original)
    def cross_entropy(*args, **kwargs):
        if args:
            raise ValueError(
                f"Only call `{name}` with named arguments (labels=..., logits=..., ...)"
            )
        return original(**kwargs)

    cross_entropy._tf1_train_original = original
    return cross_entropy
