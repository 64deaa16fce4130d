"""Step counters TF 1.x code made by hand, found again by TensorFlow's lookups.

TF1 code bases made their step counter as ``tf.Variable(0,
name='global_step', trainable=False)`` and passed it to ``minimize``
(Kyubyong's Tacotron and dc_tts, many tutorials). TensorFlow looks a step
counter up in the ``GLOBAL_STEP`` collection, then by the name
``global_step:0``: on TF 1.x that was the variable's int32 reference, on
TensorFlow 2's resource variables it is the variable's handle, of dtype
``resource``. So ``tf.train.get_global_step()``,
``get_or_create_global_step()``, ``MonitoredTrainingSession`` and the
hooks that count steps raise ``TypeError: Existing "global_step" does not
have integer type: <dtype: 'resource'>``, and ``tf.train.Supervisor`` warns
once and carries on without a step: its summaries all land at step 0 and
its checkpoints lose their step suffix.

After install() both lookups find such a variable again (the variable
object, which everything that took TF 1.x's tensor takes); a counter in the
collection, or none, is looked up as before. uninstall() puts TensorFlow's
functions back.
"""

from __future__ import annotations

from typing import Callable, List, Tuple


def named_step(graph):
    """The integer resource variable ``global_step:0`` is the handle of, else None."""
    import tensorflow as tf

    try:
        handle = graph.get_tensor_by_name("global_step:0")
    except KeyError:
        return None
    if handle.dtype != tf.resource:
        return None
    keys = (tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, tf.compat.v1.GraphKeys.LOCAL_VARIABLES)
    for variable in (v for key in keys for v in graph.get_collection(key)):
        if getattr(variable, "name", None) == handle.name and variable.dtype.is_integer:
            return variable
    return None


def _get_global_step(original: Callable) -> Callable:
    def get_global_step(graph=None):
        import tensorflow as tf

        graph = graph or tf.compat.v1.get_default_graph()
        if not graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP):
            step = named_step(graph)
            if step is not None:
                return step
        return original(graph)

    get_global_step.__doc__ = original.__doc__
    get_global_step._tf1_train_original = original
    return get_global_step


def _default_global_step_tensor(original: Callable) -> Callable:
    def default_global_step_tensor(self):
        import tensorflow as tf

        step = named_step(tf.compat.v1.get_default_graph())
        return step if step is not None else original(self)

    default_global_step_tensor._tf1_train_original = original
    return default_global_step_tensor


def patches(v1_modules: List) -> List[Tuple[object, str, object]]:
    """(where, name, value) for install()'s _set: TensorFlow's step lookup in
    its module and in every copy of the v1 API, and Supervisor's."""
    from tensorflow.python.training import supervisor, training_util

    lookup = _get_global_step(_original(training_util.get_global_step))
    out = [(training_util, "get_global_step", lookup)]
    out += [(m.train, "get_global_step", lookup) for m in v1_modules]
    default = _original(supervisor.Supervisor._default_global_step_tensor)
    out.append((supervisor.Supervisor, "_default_global_step_tensor",
                _default_global_step_tensor(default)))  # fmt: skip
    return out


def _original(function: Callable) -> Callable:
    """TensorFlow's own function under a wrapper of ours (a second install())."""
    return getattr(function, "_tf1_train_original", function)
