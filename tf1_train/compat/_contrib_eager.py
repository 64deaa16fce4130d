"""``tf.contrib.eager`` (``tfe``) after install(): the eager-execution API of
TF 1.5-1.15, which its eager programs reached as ``tfe = tf.contrib.eager``:
``tfe.enable_eager_execution()``, ``tfe.Variable``, ``tfe.implicit_gradients``
and ``tfe.Iterator`` (TensorFlow-Examples' eager regressions), the
gradient functions, ``GradientTape``, ``Checkpoint``.

In TF 1.15 nearly every name was TensorFlow's own object under a second name
(``contrib/eager/python/tfe.py``); those are TensorFlow 2.21's same objects
again, which still compute what they did. ``Iterator`` was contrib's own
eager iterator over a ``tf.data`` dataset: TensorFlow 2's ``iter(dataset)``
is that iterator now (``next()``, ``get_next()``). What went with contrib
(``Network``, ``Sequential``, the eager ``Saver`` and ``metrics``, execution
callbacks) raises one line. Under ``python -m tf1_train.compat``, which
starts in graph mode, ``enable_eager_execution()`` at the top of the program
turns eager execution back on, as TF1 started it.
"""

from __future__ import annotations

GONE = (
    "its TensorFlow objects (enable_eager_execution, Variable, implicit_gradients, "
    "GradientTape, Checkpoint, ...) and Iterator are kept; Network and Sequential: a "
    "tf.Module or Keras model; Saver: tf.train.Checkpoint; metrics: tf.keras.metrics"
)
# name: where TensorFlow 2.21 keeps the object TF 1.15 re-exported (module, attribute)
FROM_TF = {
    "enable_eager_execution": ("tensorflow.compat.v1", "enable_eager_execution"),
    "executing_eagerly": ("tensorflow", "executing_eagerly"),
    "in_eager_mode": ("tensorflow", "executing_eagerly"),
    "Variable": ("tensorflow.python.ops.resource_variable_ops", "ResourceVariable"),
    "implicit_gradients": ("tensorflow.python.eager.backprop", "implicit_grad"),
    "implicit_value_and_gradients": ("tensorflow.python.eager.backprop", "implicit_val_and_grad"),
    "gradients_function": ("tensorflow.python.eager.backprop", "gradients_function"),
    "value_and_gradients_function": ("tensorflow.python.eager.backprop", "val_and_grad_function"),
    "GradientTape": ("tensorflow", "GradientTape"),
    "custom_gradient": ("tensorflow", "custom_gradient"),
    "function": ("tensorflow", "function"),
    "py_func": ("tensorflow", "py_function"),
    "make_template": ("tensorflow.compat.v1", "make_template"),
    "num_gpus": ("tensorflow.python.eager.context", "num_gpus"),
    "Checkpoint": ("tensorflow.compat.v1.train", "Checkpoint"),
    "Checkpointable": ("tensorflow.python.trackable.autotrackable", "AutoTrackable"),
    "TensorSpec": ("tensorflow", "TensorSpec"),
    "EagerVariableStore": ("tensorflow.python.ops.variable_scope", "EagerVariableStore"),
    "SYNC": ("tensorflow.python.eager.context", "SYNC"),
    "ASYNC": ("tensorflow.python.eager.context", "ASYNC"),
    "DEVICE_PLACEMENT_EXPLICIT": ("tensorflow.python.eager.context", "DEVICE_PLACEMENT_EXPLICIT"),
    "DEVICE_PLACEMENT_WARN": ("tensorflow.python.eager.context", "DEVICE_PLACEMENT_WARN"),
    "DEVICE_PLACEMENT_SILENT": ("tensorflow.python.eager.context", "DEVICE_PLACEMENT_SILENT"),
}
KEPT = tuple(sorted((*FROM_TF, "Iterator")))


def Iterator(dataset):  # noqa: N802 (TF 1.x's name)
    """An eager iterator over ``dataset``: TensorFlow 2's own, which has
    ``next()`` and ``get_next()`` as contrib's had."""
    import tensorflow as tf

    if not tf.executing_eagerly():
        raise RuntimeError(
            "tf.contrib.eager.Iterator needs eager execution, as in TF1: call "
            "tf.compat.v1.enable_eager_execution() at the top of the program, or use "
            "tf.compat.v1.data.make_one_shot_iterator(dataset) in a graph"
        )
    return iter(dataset)


def resolve(name: str):
    """``tf.contrib.eager.<name>`` for a name of KEPT."""
    import importlib

    if name == "Iterator":
        return Iterator
    module, attribute = FROM_TF[name]
    return getattr(importlib.import_module(module), attribute)
