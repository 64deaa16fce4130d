"""Private TensorFlow names TF 1.x code read that TensorFlow 2.21 moved or dropped,
put back by install() (``uninstall()`` takes them out).

tf-slim 1.1.0's reads (found by walking its source): ``ops.Tensor`` (its fused
``batch_norm``: ``updates_collections=None``, ``zero_debias_moving_mean``, 2-D
inputs), ``variable_scope.variable`` (``slim.local_variable``),
``control_flow_ops.case``/``cond`` (``tfexample_decoder.Image``, so every
``DatasetDataProvider`` of images), ``array_ops.stack``, ... Each is the very object
TensorFlow now keeps under another name (the v1 API's, for the functions).

TensorFlow 1.x's own ``image_retraining/retrain.py`` (TensorFlow for Poets and its
many copies) reads ``tensor_shape.scalar()`` for its random distortions: TF 1.15's
three shape helpers are put back as it defined them (TensorShape of ``[]``,
``[length]``, ``[rows, cols]``). Its ``graph_util.convert_variables_to_constants``
is served by _frozen_graph.py.
"""

from __future__ import annotations

import importlib

from tensorflow.python.framework import tensor_shape


def scalar() -> tensor_shape.TensorShape:
    """TF 1.15's ``tensor_shape.scalar()``."""
    return tensor_shape.TensorShape([])


def vector(length) -> tensor_shape.TensorShape:
    """TF 1.15's ``tensor_shape.vector(length)``."""
    return tensor_shape.TensorShape([length])


def matrix(rows, cols) -> tensor_shape.TensorShape:
    """TF 1.15's ``tensor_shape.matrix(rows, cols)``."""
    return tensor_shape.TensorShape([rows, cols])


# (private module, name read, where TensorFlow 2.21 keeps the same object, or "shapes."
# for TF 1.15's helpers above)
REMOVED_NAMES = (
    ("tensorflow.python.framework.ops", "Tensor", "tensorflow.Tensor"),
    ("tensorflow.python.framework.ops", "IndexedSlices", "tensorflow.IndexedSlices"),
    ("tensorflow.python.ops.variable_scope", "variable", "variable_scope._variable_v1"),
    ("tensorflow.python.ops.array_ops", "stack", "v1.stack"),
    ("tensorflow.python.ops.array_ops", "unstack", "v1.unstack"),
    ("tensorflow.python.ops.control_flow_ops", "Assert", "v1.Assert"),
    ("tensorflow.python.ops.control_flow_ops", "case", "v1.case"),
    ("tensorflow.python.ops.control_flow_ops", "cond", "v1.cond"),
    ("tensorflow.python.ops.control_flow_ops", "while_loop", "v1.while_loop"),
    ("tensorflow.python.framework.tensor_shape", "scalar", "shapes.scalar"),
    ("tensorflow.python.framework.tensor_shape", "vector", "shapes.vector"),
    ("tensorflow.python.framework.tensor_shape", "matrix", "shapes.matrix"),
)


def restore(set_) -> None:
    """Each name TensorFlow 2.21's module lacks, set with ``set_`` (install()'s)."""
    import sys

    import tensorflow as tf
    from tensorflow.python.ops import variable_scope

    roots = {"tensorflow": tf, "v1": tf.compat.v1, "variable_scope": variable_scope,
             "shapes": sys.modules[__name__]}  # fmt: skip
    for module_name, name, source in REMOVED_NAMES:
        module = importlib.import_module(module_name)
        if name not in module.__dict__:
            root, attribute = source.split(".", 1)
            set_(module, name, getattr(roots[root], attribute))
