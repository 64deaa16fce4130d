"""Opt-in: make ``tf.compat.v1.layers`` (``tf.layers`` after ``import
tensorflow.compat.v1 as tf``) resolve to tf1_train.compat.layers.

Under Keras 3 that attribute is a lazy loader that raises "not available with
Keras 3" on first use, and TensorFlow's private
``tensorflow.python.layers.normalization`` (which tf-slim's ``batch_norm``
uses) forwards to ``tf_keras.legacy_tf_layers``, which is not installed. Both
are re-pointed here, and two private names tf-slim reads are put back
(``_restore_removed_names``); nothing else changes, and nothing changes until
a program calls ``install()``. TensorFlow's private dense/conv/pooling layers, which
tf-slim also uses, still work on 2.21 and are left alone.
"""

import sys

_state = {"installed": False}
_MISSING = object()
_saved = []  # (module or dict, name, what it held or _MISSING), in the order set


def _set(where, name: str, value) -> None:
    """``where.name = value`` (``where[name]`` for a dict), remembering what
    was there for uninstall(). TensorFlow's API modules may be wrappers:
    only setattr reaches what ``import`` hands out."""
    is_dict = isinstance(where, dict)
    old = where.get(name, _MISSING) if is_dict else getattr(where, name, _MISSING)
    if old is value:
        return
    _saved.append((where, name, old))
    if is_dict:
        where[name] = value
    else:
        setattr(where, name, value)


def install() -> None:
    """Point the legacy layer names at tf1_train.compat.layers (idempotent:
    a second call only patches copies of the v1 API imported since)."""
    # Importing tensorflow.compat.v1 runs the v1 API's __init__ once more, as
    # its own module with its own lazy loader: load it first, then patch every
    # copy of the v1 API (tf.compat.v1, tf.compat.v1.compat.v1, ...).
    import tensorflow.compat.v1  # noqa: F401
    import tensorflow.python.layers.normalization as private_normalization

    from tf1_train.compat import layers

    for name, module in list(sys.modules.items()):
        if name.startswith("tensorflow") and name.endswith("compat.v1") and module is not None:
            _set(module, "layers", layers)
            _set(sys.modules, name + ".layers", layers)
    # tf-slim's batch_norm reads BatchNormalization through this lazy loader.
    _set(private_normalization, "normalization", layers)
    _restore_removed_names()
    _state["installed"] = True


def uninstall() -> None:
    """Puts back every name install() changed, so one process can run code
    with and without it (tests)."""
    while _saved:
        where, name, old = _saved.pop()
        if isinstance(where, dict) and old is _MISSING:
            where.pop(name, None)
        elif isinstance(where, dict):
            where[name] = old
        elif old is _MISSING:
            delattr(where, name)
        else:
            setattr(where, name, old)
    _state["installed"] = False


def _restore_removed_names() -> None:
    """Two private names tf-slim 1.1.0 reads that TensorFlow 2.21 dropped, so
    its calls raised ``AttributeError``: ``ops.Tensor`` (an alias of
    ``tf.Tensor``; its ``smart_cond``/``constant_value``, so its own fused
    ``batch_norm``: ``updates_collections=None``, ``zero_debias_moving_mean``,
    2-D inputs) and ``variable_scope.variable`` (now ``_variable_v1``;
    ``slim.local_variable``, ``slim.global_variable``). Both are put back as
    the same objects under their old names; nothing else is touched."""
    import tensorflow as tf
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import variable_scope

    if not hasattr(ops, "Tensor"):
        _set(ops, "Tensor", tf.Tensor)
    if not hasattr(variable_scope, "variable"):
        _set(variable_scope, "variable", variable_scope._variable_v1)


def is_installed() -> bool:
    """Whether ``install()`` ran in this process."""
    return _state["installed"]
