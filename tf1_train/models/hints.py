"""What to do, appended to the one error line a user's code gets when it
fails the way TF1 code fails on TensorFlow 2.21.

A porter's first ``--model`` run of a TF1 code base usually stops at a name
TensorFlow 2 no longer has at its top level (``tf.variable_scope``,
``tf.layers``, ``tf.train.AdamOptimizer``) or at ``import
tensorflow.contrib``. Python's own message says what is missing, not that
the code is TF 1.x's or how to run it: these hints name both routes, the
unchanged one (``--v1`` on the TF1 entry point and in port check, which
serves the v1 API to the files under the working directory, as ``python -m
tf1_train.compat --v1`` does) and the edit.
"""

from __future__ import annotations

import re

COMPAT_ROUTE = (
    "run your code's TF 1.x names unchanged with --v1 (python -m tf1_train.main --v1, "
    "port check --v1) from the directory that holds it"
)
EDIT = (
    "or call tf1_train.compat.install() at the top of your module, "
    "then import tensorflow.compat.v1 as tf"
)
_NO_ATTRIBUTE = re.compile(r"module '(tensorflow[\w.]*)' has no attribute '(\w+)'")
_V2_API = "tensorflow._api.v2."


def tf1_name(message: str) -> str:
    """' (tf.X is TF 1.x's name ...)' when ``message`` is TensorFlow 2's
    AttributeError for a name its v1 API has (or ``tf.contrib``), else ''."""
    found = _NO_ATTRIBUTE.search(message)
    if not found:
        return ""
    module, name = found.groups()
    if module.startswith(_V2_API + "compat."):
        return ""  # already the v1 (or v2) compat API: a name it lacks
    path = module[len(_V2_API) :].split(".") if module.startswith(_V2_API) else []
    import tensorflow as tf

    v1 = tf.compat.v1
    for part in path:
        v1 = getattr(v1, part, None)
    if not (name == "contrib" and not path) and not hasattr(v1, name):
        return ""
    dotted = ".".join(["tf", *path, name])
    return f" ({dotted} is TF 1.x's name: {COMPAT_ROUTE}, {EDIT}: docs/YOUR_MODEL.md)"


def tf1_module(name: str) -> str:
    """What to do about ``import tensorflow.contrib...`` (any module of
    TensorFlow's own that 2.21 lacks), '' for other modules."""
    if not (name or "").startswith("tensorflow."):
        return ""
    from tf1_train.compat import is_installed

    if is_installed():  # served by nothing: the scanner knows what replaced it
        return (
            f"TensorFlow 2 has no module {name!r}, and tf1_train.compat.install() does not "
            "serve it: python -m tf1_train.port scan <your code> names what replaced it"
        )
    return f"TensorFlow 2 has no module {name!r} (TF 1.x's): {COMPAT_ROUTE}, {EDIT}"


_DIMENSION_VALUE = re.compile(r"'(int|NoneType)' object has no attribute 'value'")


def dimension_value(message: str) -> str:
    """' (TF 1.x's Dimension.value ...)' for TensorFlow 2's ints (None for an
    unknown size) where TF 1.x's shapes held ``Dimension`` objects, else ''."""
    if not _DIMENSION_VALUE.search(message):
        return ""
    return (
        " (x.shape[i].value is TF 1.x's Dimension.value: TF 2's shapes hold ints, None when "
        "unknown: drop .value, or tf.compat.v1.dimension_value(x.shape[i]) for code that "
        "runs on both; unchanged: python -m tf1_train.compat --v1 --v1_shapes -m "
        "tf1_train.main ..., which gives TF 1.x's shapes to the whole process, tf1_train's "
        "own code included)"
    )
