"""Opt-in: make ``tf.compat.v1.layers`` (``tf.layers`` after ``import
tensorflow.compat.v1 as tf``) resolve to tf1_train.compat.layers and
``tf.compat.v1.nn.rnn_cell`` to TensorFlow's own legacy cells
(tf1_train.compat.rnn_cell), and put back
what legacy programs import or read that TensorFlow 2.21, NumPy 2 and SciPy dropped.

Under Keras 3 that attribute is a lazy loader that raises "not available with
Keras 3" on first use, and TensorFlow's private
``tensorflow.python.layers.normalization`` (which tf-slim's ``batch_norm``
uses) forwards to ``tf_keras.legacy_tf_layers``, which is not installed. Both
are re-pointed here; the private names tf-slim 1.1.0 reads are put back where
TensorFlow moved them (_removed_names.py), NumPy's aliases of the
builtins (``np.int``) likewise, and ``tensorflow.contrib.quantize``,
``.training``, ``.rnn``, ``.legacy_seq2seq``, ``.seq2seq``, ``.crf`` and
``.distributions`` become importable
(``_contrib``: placeholders, but for what each kept of TF 1.15), and so does
``tensorflow.examples.tutorials.mnist`` (_tutorial_mnist.py), and
``tf.estimator`` when tensorflow-estimator is installed (_estimator.py), and
SciPy's moved names and module paths as the program imports SciPy
(_scipy_removed.py), and Pillow's ``Image.ANTIALIAS`` (_pillow_removed.py), and
TensorFlow's step lookups find a counter made as
``tf.Variable(0, name='global_step')`` (_global_step.py), and
``tf.keras.layers.Wrapper`` holds ``tf.layers`` layers again (_wrapper.py), and
a ``.meta`` TF 1.x wrote with a batch norm's gradient imports (_graph_import.py), and a
fused batch norm's epsilon has TF 1.x's floor (_fused_epsilon.py), and
``get_variable`` runs a regularizer once, as TF 1.x did (_regularizers.py), and
resource variables have ``initialized_value()`` again (_initialized_value.py), are
instances of ``tf.compat.v1.Variable`` again and true as a condition in a v1 graph
(_variable_class.py), and ``Dataset.prefetch``
takes a NumPy integer and a shape a bool or whole float as the ints TF 1.x made of them
(_int_arguments.py), and ``tensorboard.summary`` has TensorBoard 1.x's ``*_pb`` and PR-curve
functions again (_tensorboard_v1.py), and a custom-op library built for TF 1.x says so when
it fails to load (_op_libraries.py), a frozen graph loads on TF 1.x (_frozen_graph.py), and
``horovod.tensorflow`` imports, for one process, where Horovod is not installed (_horovod.py),
and Keras 2's ``keras.preprocessing`` names are back in Keras 3 (_keras2_removed.py).
Nothing else changes, and nothing changes until a program calls ``install()``.
"""

import sys

_state = {"installed": False}
_MISSING = object()
_INSERTED = object()  # an item install() put in a list (sys.meta_path)
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

    from tf1_train.compat import (
        _frozen_graph,
        _horovod,
        _initialized_value,
        _int_arguments,
        _keras2_removed,
        _keras_v1_initializers,
        _numpy_bool_features,
        _op_libraries,
        _pillow_removed,
        _regularizers,
        _tensorboard_v1,
        _variable_class,
        _variable_feeds,
        _while_loop,
        _xent_named_args,
        layers,
    )

    rnn_cell = _legacy_rnn_cells()
    for name, module in _v1_apis():
        _set(module, "layers", layers)
        _set(sys.modules, name + ".layers", layers)
        if rnn_cell is not None:
            _set(module.nn, "rnn_cell", rnn_cell)
            _set(sys.modules, name + ".nn.rnn_cell", rnn_cell)
    # tf-slim's batch_norm reads BatchNormalization through this lazy loader.
    _set(private_normalization, "normalization", layers)
    _restore_removed_names()
    _restore_operation_outputs()
    _find_named_global_step()
    _restore_numpy_builtin_aliases()
    _add_contrib_placeholders()
    _add_tutorial_modules()
    _add_estimator()
    _add_scipy_names()
    _pillow_removed.install(_set)  # Image.ANTIALIAS & co., removed in Pillow 10
    _add_legacy_wrapper()
    _regularizers.install(_set)  # get_variable's regularizer called once, as on TF 1.x
    _initialized_value.install(_set)  # TF 1.15's Variable.initialized_value
    _variable_class.install(_set)  # isinstance(v, tf.compat.v1.Variable), `if v:` (v1 graph)
    _int_arguments.install(_set)  # prefetch(np.int64(n)), bool/float dimensions: TF 1.x's ints
    _variable_feeds.install(_set)  # a fed variable's reads take the feed, as TF 1.x's did
    _keras_v1_initializers.install(_set, _v1_apis())  # TF 1.15's tf.compat.v1.keras.initializers
    _tensorboard_v1.install(_set)  # tensorboard.summary.custom_scalar_pb & co. (TensorBoard 1.x)
    _while_loop.install(_set)  # a loop's results in its body's structure, as TF 1.x packed them
    _op_libraries.install(_set, _tf_apis())  # a TF 1.x-built op library: why it does not load
    _frozen_graph.install(_set, [api for _, api in _v1_apis()])  # loads on TF 1.x too
    _import_tf1_graphs()
    _floor_fused_batch_norm_epsilon()
    _insert_finder(_horovod.Finder())  # horovod.tensorflow for one process, if not installed
    _keras2_removed.install(_set)  # keras.preprocessing.image.ImageDataGenerator & co.
    _xent_named_args.install(_set, [api for _, api in _v1_apis()])  # TF 1.x: keywords only
    _numpy_bool_features.install(_set, _tf_apis())  # Int64List(value=<np.bool_ array>): 0/1
    _state["installed"] = True


def _floor_fused_batch_norm_epsilon() -> None:
    """TF 1.x's floor of 1.001e-5 on a fused batch norm's epsilon (_fused_epsilon.py)."""
    from tensorflow.python.ops import nn, nn_impl

    from tf1_train.compat._fused_epsilon import with_tf1_epsilon

    original = getattr(nn_impl.fused_batch_norm, "_tf1_train_original", nn_impl.fused_batch_norm)
    floored = with_tf1_epsilon(original)
    for module in [nn_impl, nn] + [api.nn for _, api in _v1_apis()]:
        if getattr(module.fused_batch_norm, "_tf1_train_original", None) is None:
            _set(module, "fused_batch_norm", floored)


def _import_tf1_graphs() -> None:
    """Importing a graph TF 1.x wrote with a batch norm's gradient in it (_graph_import.py)."""
    from tensorflow.python.framework import importer

    from tf1_train.compat import _graph_import

    original = importer._import_graph_def_internal
    if getattr(original, "_tf1_train_original", None) is None:
        wrapped = _graph_import.importer(original)
        wrapped._tf1_train_original = original
        _set(importer, "_import_graph_def_internal", wrapped)


def _add_legacy_wrapper() -> None:
    """``tf.keras.layers.Wrapper`` (v1 and v2 API) as TF 1.x's, which held tf.layers layers
    (_wrapper.py); ``keras.layers.Wrapper``, Bidirectional, TimeDistributed stay Keras 3's."""
    import tensorflow as tf

    from tf1_train.compat._wrapper import Wrapper

    _set(tf.compat.v1.keras.layers, "Wrapper", Wrapper)


def _v1_apis() -> list:
    """(name, module) of every copy of the v1 API imported so far
    (tf.compat.v1, tf.compat.v1.compat.v1, ...)."""
    return [
        (name, module)
        for name, module in list(sys.modules.items())
        if name.startswith("tensorflow") and name.endswith("compat.v1") and module is not None
    ]


def _tf_apis() -> list:
    """TensorFlow's top-level API, its v2 copy and every copy of the v1 API."""
    import tensorflow as tf

    return [tf, tf.compat.v2] + [module for _, module in _v1_apis()]


def _legacy_rnn_cells():
    """tf1_train.compat.rnn_cell, or None on a TensorFlow without its private legacy cells."""
    try:
        from tf1_train.compat import rnn_cell
    except ImportError:
        return None
    return rnn_cell


def uninstall() -> None:
    """Puts back every name install() changed (tests run code with and without it)."""
    while _saved:
        where, name, old = _saved.pop()
        if old is _INSERTED:  # the finder: out of sys.meta_path, its imports forgotten
            where.remove(name)
            for module_name in name.loaded:
                sys.modules.pop(module_name, None)
        elif isinstance(where, dict) and old is _MISSING:
            where.pop(name, None)
        elif isinstance(where, dict):
            where[name] = old
        elif old is _MISSING:
            delattr(where, name)
        else:
            setattr(where, name, old)
    _state["installed"] = False


def _restore_removed_names() -> None:
    """Private names tf-slim 1.1.0 and TF 1.x's retrain.py read (_removed_names.py)."""
    from tf1_train.compat import _removed_names

    _removed_names.restore(_set)


def _find_named_global_step() -> None:
    """Step lookups find ``tf.Variable(0, name='global_step')``, as TF 1.x's (_global_step.py)."""
    from tf1_train.compat import _global_step

    v1_apis = [module for _, module in _v1_apis() if hasattr(module, "train")]
    for where, name, value in _global_step.patches(v1_apis):
        _set(where, name, value)


def _restore_operation_outputs() -> None:
    """``Operation._outputs``: TF 1.x kept an op's output tensors in this
    private list, and code that rewires graphs read it (OpenAI's gradient
    checkpointing takes ``copy._outputs[0]`` of each op the graph editor
    copied); TensorFlow 2.21's ops have only ``outputs``. Put back as a
    read-only property giving that same list."""
    from tensorflow.python.framework import ops

    if not hasattr(ops.Operation, "_outputs"):
        _set(ops.Operation, "_outputs", property(lambda op: op.outputs))


def _restore_numpy_builtin_aliases() -> None:
    """``np.int``, ``np.float``, ``np.complex``, ``np.str``, ``np.object``:
    NumPy 1.24 removed these aliases of the builtins (TensorFlow 2.21 needs a
    NumPy without them), so TF1-era code that says ``np.int(x)`` or
    ``dtype=np.float`` raised ``AttributeError`` (tensorflow/models' MobileNet
    v3 at import). They are put back as the builtins they were, so nothing
    computes differently; the names come from NumPy's own list of them. The
    names NumPy 2 removed (``np.float_``, ``np.NaN``, ``np.asscalar``, ...:
    _numpy_removed.py) are put back likewise, as what NumPy 1.x had, and so
    are ``numpy.lib``'s aliases of NumPy's functions (``np.lib.pad``), and
    NumPy 1.x's object array of sequences of unequal lengths (_numpy_ragged.py)."""
    import builtins

    import numpy as np

    # Through the module's __dict__: getattr(np, "object") warns before it raises.
    for name in getattr(np, "__former_attrs__", {}):
        if hasattr(builtins, name) and name not in np.__dict__:
            _set(np.__dict__, name, getattr(builtins, name))
    from tf1_train.compat import _numpy_ragged, _numpy_removed  # NumPy 2's: np.float_, np.lib.pad

    _numpy_removed.install(_set)
    _numpy_ragged.install(_set)  # np.array([[1, 2], [3]]): an object array, as NumPy 1.x made


def _add_contrib_placeholders() -> None:
    """``tensorflow.contrib``'s submodules of tf1_train.compat._contrib
    importable, every name in them raising on use but those kept (that
    module says which, and why these submodules), and reachable as TF 1.x
    reached them: ``tf.contrib`` after ``import tensorflow as tf`` or
    ``import tensorflow.compat.v1 as tf`` (TF 1.x's ``tf.compat.v1.contrib``
    was ``tf.contrib``), and ``from tensorflow.compat.v1.contrib import crf``."""
    import tensorflow as tf

    from tf1_train.compat._contrib import PACKAGE, placeholder_modules

    modules = placeholder_modules()
    for name, module in modules.items():
        if name not in sys.modules:
            _set(sys.modules, name, module)
    package = sys.modules[PACKAGE]
    if getattr(tf, "contrib", None) is None:
        _set(tf, "contrib", package)
    prefixes = [PACKAGE + "."]
    for v1_name, v1 in _v1_apis():
        _set(v1, "contrib", package)
        prefixes.append(f"{v1_name}.contrib.")
        for name, module in modules.items():
            alias = v1_name + name[len("tensorflow") :]
            if alias not in sys.modules:
                _set(sys.modules, alias, module)
    _add_slim_finder(prefixes)


def _add_tutorial_modules() -> None:
    """``tensorflow.examples.tutorials.mnist`` (_tutorial_mnist.py), which TensorFlow 2.0 left
    out of the pip package, importable and reachable as ``tensorflow.examples``."""
    import tensorflow as tf

    from tf1_train.compat import _tutorial_mnist

    modules = _tutorial_mnist.modules()
    for name, module in modules.items():
        if name not in sys.modules:
            _set(sys.modules, name, module)
    if getattr(tf, "examples", None) is None:
        _set(tf, "examples", sys.modules[_tutorial_mnist.PACKAGE])


def _add_estimator() -> None:
    """``tf.estimator`` when tensorflow-estimator is installed, made to import
    on TensorFlow 2.21 by _estimator.py, as TF 2.15 had it: TF 1.x's (the v1
    API) on every copy of the v1 API, TF 2's (the v2 API) on ``tensorflow``
    and ``tf.compat.v2``."""
    from tf1_train.compat import _estimator

    if not _estimator.available():
        return
    _estimator.prepare(_set)
    apis = {_estimator.V1_API: _estimator.v1_api(_set), _estimator.V2_API: _estimator.v2_api(_set)}
    roots = {"tensorflow": _estimator.V2_API}
    for name, module in list(sys.modules.items()):
        if name.startswith("tensorflow") and module is not None:
            if name.endswith("compat.v1"):
                roots[name] = _estimator.V1_API
            elif name.endswith("compat.v2"):
                roots[name] = _estimator.V2_API
    for root, api in roots.items():
        _set(sys.modules[root], "estimator", apis[api])
    # `from tensorflow.estimator import RunConfig`, `import tensorflow.compat.v1.estimator`
    for name, module in list(sys.modules.items()):
        for root, api in roots.items():
            if name == api or name.startswith(api + "."):
                alias = root + ".estimator" + name[len(api) :]
                if alias not in sys.modules:
                    _set(sys.modules, alias, module)
    for name, module in list(sys.modules.items()):  # the package's modules, imported by now
        if name == _estimator.MODULES or name.startswith(_estimator.MODULES + "."):
            alias = _estimator.PRIVATE + name[len(_estimator.MODULES) :]
            if alias not in sys.modules:
                _set(sys.modules, alias, module)


def _add_slim_finder(prefixes) -> None:
    """tf-slim's modules as ``tensorflow.contrib.slim``, ``.layers`` and
    ``.framework`` (_contrib_slim.py), first on sys.meta_path: a path
    finder would load a second copy of ``tf_slim.nets`` under the old name."""
    from tf1_train.compat._contrib_slim import Finder

    for finder in sys.meta_path:
        if isinstance(finder, Finder):
            finder.prefixes = tuple(dict.fromkeys([*finder.prefixes, *prefixes]))
            return
    _insert_finder(Finder(prefixes))


def _add_scipy_names() -> None:
    """SciPy's moved names and module paths (_scipy_removed.py): put back in
    the SciPy modules already loaded, and by a finder in those loaded later."""
    from tf1_train.compat import _scipy_removed

    def record(module, name, old=_MISSING) -> None:
        _saved.append((module, name, old))

    for name in sorted(_scipy_removed.PATCHED & set(sys.modules)):
        for done in _scipy_removed.put_back(sys.modules[name]):
            record(*done)
    _insert_finder(_scipy_removed.Finder(record))


def _insert_finder(finder) -> None:
    """``finder`` first on sys.meta_path, unless one of its class is; uninstall() removes it."""
    if not any(type(f) is type(finder) for f in sys.meta_path):
        sys.meta_path.insert(0, finder)
        _saved.append((sys.meta_path, finder, _INSERTED))


def is_installed() -> bool:
    """Whether ``install()`` ran in this process."""
    return _state["installed"]
