"""``tensorflow.contrib.slim``, ``.layers`` and ``.framework`` after
install(), served by tf-slim when it is installed.

tf-slim 1.1.0 is contrib.slim's, contrib.layers' and contrib.framework's
variable and arg_scope code moved out of TensorFlow onto
``tensorflow.compat.v1``: the same functions, defaults and variable names
(``Conv/weights``, ``fully_connected/biases``, ``BatchNorm/moving_mean``).
TF1 programs reach them as ``slim = tf.contrib.slim``,
``tf.contrib.layers.xavier_initializer()``,
``tf.contrib.layers.l2_regularizer(scale)``, ``from
tensorflow.contrib.slim.nets import resnet_v1``,
``tf.contrib.framework.arg_scope``; with tf-slim installed those lines run
as written (tf1_train itself does not need tf-slim). ``slim`` and its
submodules are tf-slim's own modules; ``layers`` and ``framework`` hand out
tf-slim's objects under the names TF 1.15's modules exported
(``remove_undocumented`` kept no others), and ``layers`` two of its own that
tf-slim dropped, written from TF 1.15's ops: ``embed_sequence`` and
``embedding_lookup_unique``; ``framework`` also the names TF 1.15 re-exported
from TensorFlow itself (``nest``, ``sort``, ``load_checkpoint``,
``smart_cond`` ...), as TensorFlow's objects. Every other name of TF 1.15's
modules (feature columns, ``bow_encoder``, ``framework.py_func`` ...) raises
one ``AttributeError`` saying where it went.

Without tf-slim none of this is served: ``import tensorflow.contrib.slim``
raises ``ModuleNotFoundError`` as before (so ``try: ... except ImportError:
import tf_slim`` fallbacks behave as they did), and ``tf.contrib.layers``
one ``AttributeError`` saying to install it.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types

SLIM = "tf_slim"
SERVED = ("slim", "layers", "framework")

# TF 1.15's tensorflow.contrib.layers names tf-slim 1.1.0 keeps (in tf_slim.layers).
LAYERS_FROM_SLIM = tuple(
    """GDN OPTIMIZER_CLS_NAMES OPTIMIZER_SUMMARIES RevBlock apply_regularization avg_pool2d
    avg_pool3d batch_norm bias_add conv1d conv2d conv2d_in_plane conv2d_transpose conv3d
    conv3d_transpose convolution convolution1d convolution2d convolution2d_in_plane
    convolution2d_transpose convolution3d convolution3d_transpose dense_to_sparse dropout elu
    flatten fully_connected gdn group_norm images_to_sequence instance_norm l1_l2_regularizer
    l1_regularizer l2_regularizer layer_norm legacy_fully_connected legacy_linear legacy_relu
    linear max_pool2d max_pool3d maxout one_hot_encoding optimize_loss recompute_grad relu
    relu6 repeat rev_block scale_gradient separable_conv2d separable_convolution2d
    sequence_to_images softmax spatial_softmax stack sum_regularizer summaries
    summarize_activation summarize_activations summarize_collection summarize_tensor
    summarize_tensors unit_norm variance_scaling_initializer xavier_initializer
    xavier_initializer_conv2d""".split()
)
LAYERS_OWN = ("embed_sequence", "embedding_lookup_unique")
# TF 1.15's tensorflow.contrib.framework names tf-slim 1.1.0 keeps (at its top level).
FRAMEWORK_FROM_SLIM = tuple(
    """VariableDeviceChooser add_arg_scope add_model_variable arg_scope arg_scoped_arguments
    assert_global_step assert_or_get_global_step assign_from_checkpoint
    assign_from_checkpoint_fn assign_from_values assign_from_values_fn create_global_step
    current_arg_scope filter_variables get_global_step get_local_variables get_model_variables
    get_or_create_global_step get_trainable_variables get_unique_variable get_variable_full_name
    get_variables get_variables_by_name get_variables_by_suffix get_variables_to_restore
    global_variable has_arg_scope local_variable model_variable variable""".split()
)
TENSOR_UTIL = "tf1_train.compat._contrib_tensor_util"
TENSOR_UTIL_NAMES = ("assert_same_float_dtype", "assert_scalar", "assert_scalar_int",
                     "convert_to_tensor_or_sparse_tensor", "is_tensor", "reduce_sum_n",
                     "remove_squeezable_dimensions", "with_same_shape", "with_shape")  # fmt: skip
# TF 1.15's tensorflow.contrib.framework names that were TensorFlow's own
# objects re-exported (or, for the checkpoint readers, contrib's copies of
# them, since moved to core unchanged): TensorFlow 2.21 still has each one.
FRAMEWORK_FROM_TF = {
    "sort": ("tensorflow.python.ops.sort_ops", "sort"),
    "argsort": ("tensorflow.python.ops.sort_ops", "argsort"),
    "is_tensor": ("tensorflow.python.framework.tensor_util", "is_tf_type"),
    "prepend_name_scope": ("tensorflow.python.framework.ops", "prepend_name_scope"),
    "strip_name_scope": ("tensorflow.python.framework.ops", "strip_name_scope"),
    "smart_cond": ("tensorflow.python.framework.smart_cond", "smart_cond"),
    "smart_constant_value": ("tensorflow.python.framework.smart_cond", "smart_constant_value"),
    "smart_case": ("tensorflow.python.framework.smart_cond", "smart_case"),
    "TensorSpec": ("tensorflow.python.framework.tensor_spec", "TensorSpec"),
    "BoundedTensorSpec": ("tensorflow.python.framework.tensor_spec", "BoundedTensorSpec"),
    "RecordInput": ("tensorflow.python.ops.data_flow_ops", "RecordInput"),
    "deprecated": ("tensorflow.python.util.deprecation", "deprecated"),
    "deprecated_args": ("tensorflow.python.util.deprecation", "deprecated_args"),
    "deprecated_arg_values": ("tensorflow.python.util.deprecation", "deprecated_arg_values"),
    "load_checkpoint": ("tensorflow.python.training.checkpoint_utils", "load_checkpoint"),
    "load_variable": ("tensorflow.python.training.checkpoint_utils", "load_variable"),
    "list_variables": ("tensorflow.python.training.checkpoint_utils", "list_variables"),
    # with_shape, reduce_sum_n, ...: contrib's tensor_util again (_contrib_tensor_util.py)
    **{name: (TENSOR_UTIL, name) for name in TENSOR_UTIL_NAMES if name != "is_tensor"},
    **{
        name: ("tensorflow.python.ops.init_ops", name)
        for name in (
            "convolutional_delta_orthogonal",
            "convolutional_orthogonal_1d",
            "convolutional_orthogonal_2d",
            "convolutional_orthogonal_3d",
        )
    },  # fmt: skip
}
# contrib.framework.nest: TensorFlow's nest under the names TF 1.15 allowed
# (``is_sequence`` is today's ``is_nested``).
NEST_NAMES = tuple(
    """assert_same_structure is_nested is_sequence is_sequence_or_composite flatten
    flatten_dict_items pack_sequence_as map_structure map_structure_with_paths
    map_structure_with_tuple_paths assert_shallow_structure flatten_up_to
    flatten_with_tuple_paths_up_to map_structure_up_to map_structure_with_tuple_paths_up_to
    get_traverse_shallow_structure yield_flat_paths flatten_with_joined_string_paths
    flatten_with_tuple_paths""".split()
)
# Where the names tf-slim dropped went.
GONE = {
    "layers": "feature columns: tf.feature_column or Keras preprocessing layers; bow_encoder, "
    "safe_embedding_lookup_sparse: tf.compat.v1.nn.safe_embedding_lookup_sparse (combiner "
    "'mean') over your own embeddings variable",
    "framework": "tf.compat.v1.train.init_from_checkpoint, tf.compat.v1.py_func, "
    "tf.compat.v1.get_default_graph().get_name_scope(), tf.debugging.assert_* and "
    "tf.math.is_non_decreasing / is_strictly_increasing, tf.ensure_shape",
}


def available() -> bool:
    """Whether tf-slim is installed (looked up, not imported: the scanner asks too)."""
    return importlib.util.find_spec(SLIM) is not None


def kept(submodule: str, name: str, deeper: str = "") -> bool:
    """Whether ``tensorflow.contrib.<submodule>.<name>[.<deeper>]`` works
    after install() (``deeper``: the next level, for ``python`` paths)."""
    if not available():
        return False
    if name == "python":  # contrib's implementation modules: INTERNAL's only
        return not deeper or (submodule, name, deeper) in (*INTERNAL, FRAMEWORK_FRAMEWORK)
    if submodule == "slim":  # tf-slim's own module: what it has (TF 1.15's held more)
        return _slim_has(name)
    if submodule == "layers":
        return name in LAYERS_FROM_SLIM or name in LAYERS_OWN
    framework = (*FRAMEWORK_FROM_SLIM, *FRAMEWORK_FROM_TF, "nest")
    return submodule == "framework" and name in framework


def _slim_has(name: str) -> bool:
    """Whether ``tf_slim.<name>`` is an attribute or a submodule of tf-slim
    (``slim.conv2d``, ``slim.nets``); TF 1.15's ``slim`` also re-exported
    contrib.layers' feature columns and ``embed_sequence``, which it lacks."""
    import tf_slim

    return hasattr(tf_slim, name) or importlib.util.find_spec(f"tf_slim.{name}") is not None


def embedding_lookup_unique(params, ids, name=None):
    """``tf.contrib.layers.embedding_lookup_unique``: each distinct id looked
    up once, the rows gathered back into ``ids``' shape (any rank)."""
    import tensorflow as tf

    with tf.name_scope(name or "EmbeddingLookupUnique"):
        ids = tf.convert_to_tensor(ids)
        shape = tf.shape(ids)
        ids_flat = tf.reshape(ids, tf.reduce_prod(shape, keepdims=True))
        unique_ids, idx = tf.unique(ids_flat)
        unique_embeddings = tf.compat.v1.nn.embedding_lookup(params, unique_ids)
        embeds_flat = tf.gather(unique_embeddings, idx)
        embed_shape = tf.concat([shape, tf.shape(unique_embeddings)[1:]], 0)
        embeds = tf.reshape(embeds_flat, embed_shape)
        embeds.set_shape(ids.get_shape().concatenate(unique_embeddings.get_shape()[1:]))
        return embeds


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None):  # fmt: skip
    """``tf.contrib.layers.embed_sequence``: ``[batch, length]`` ids to
    ``[batch, length, embed_dim]``, looked up in a model variable
    ``EmbedSequence/embeddings`` (shared between an encoder and a decoder
    through ``scope`` and ``reuse``), TF 1.15's checks and defaults."""
    import tensorflow as tf
    import tf_slim

    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError(
            "Must specify vocab size and embedding dimension when notreusing. "
            f"Got vocab_size={vocab_size} and embed_dim={embed_dim}"
        )  # TF 1.15's message, its missing space included
    with tf.compat.v1.variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim]
        if reuse and vocab_size is None or embed_dim is None:
            shape = None
        embeddings = tf_slim.model_variable(
            "embeddings", shape=shape, initializer=initializer, regularizer=regularizer,
            trainable=trainable,
        )  # fmt: skip
        if unique:
            return embedding_lookup_unique(embeddings, ids)
        return tf.compat.v1.nn.embedding_lookup(embeddings, ids)


def _served_module(full: str, submodule: str) -> types.ModuleType:
    """``tensorflow.contrib.layers`` / ``.framework``: tf-slim's objects under
    TF 1.15's names, every other name one AttributeError."""
    import tf_slim

    source = sys.modules["tf_slim.layers"] if submodule == "layers" else tf_slim
    names = LAYERS_FROM_SLIM if submodule == "layers" else FRAMEWORK_FROM_SLIM
    module = types.ModuleType(full, f"TF 1.15's {full}, served by tf-slim (tf1_train.compat)")
    for name in names:
        setattr(module, name, getattr(source, name))
    if submodule == "layers":
        module.embed_sequence = embed_sequence
        module.embedding_lookup_unique = embedding_lookup_unique
    else:
        for name, (path, attribute) in FRAMEWORK_FROM_TF.items():
            setattr(module, name, getattr(importlib.import_module(path), attribute))
        module.nest = _nest(full)

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{full}.{name} is not in tf-slim, which serves {full} after tf1_train.compat."
            f"install(); it went with tf.contrib in TensorFlow 2.0 ({GONE[submodule]})"
        )

    module.__getattr__ = __getattr__
    module.__path__ = []  # its `python.layers` / `python.ops` levels (Finder)
    return module


def _nest(framework: str) -> types.ModuleType:
    from tensorflow.python.util import nest

    module = types.ModuleType(f"{framework}.nest", "TF 1.15's contrib.framework.nest")
    for name in NEST_NAMES:
        setattr(module, name, getattr(nest, "is_nested" if name == "is_sequence" else name))
    return module


# TF 1.x code also imported contrib's implementation modules, which tf-slim
# keeps under other names (tf-faster-rcnn: `from tensorflow.contrib.slim.python.
# slim.nets import resnet_v1`, `from tensorflow.contrib.layers.python.layers
# import utils`, `from tensorflow.contrib.framework.python.ops import arg_scope`).
INTERNAL = {
    ("slim", "python", "slim"): SLIM,
    ("layers", "python", "layers"): "tf_slim.layers",
    ("framework", "python", "ops"): "tf_slim.ops",
}


# `from tensorflow.contrib.framework.python.framework import tensor_util`: ours
FRAMEWORK_FRAMEWORK = ("framework", "python", "framework")


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``tensorflow.contrib.slim[.X]``, ``.layers`` and ``.framework``
    (and their ``tensorflow.compat.v1.contrib`` spellings) lazily: tf-slim's
    modules themselves for ``slim`` and the INTERNAL paths, one module each
    for ``layers`` and ``framework``, an empty package for a path's
    ``python`` level. ``loaded`` lists what it put in sys.modules, for
    uninstall()."""

    def __init__(self, prefixes):
        self.prefixes = tuple(prefixes)  # "tensorflow.contrib.", "tensorflow.compat.v1.contrib."
        self.loaded = []
        self._made = {}

    def _target(self, name: str):
        """What ``name`` is: ("tf-slim", its module's name), ("served", the
        submodule), ("package", name) or None."""
        parts = next((name[len(p) :].split(".") for p in self.prefixes if name.startswith(p)), None)
        if not parts or parts[0] not in SERVED:
            return None
        if len(parts) == 1:
            return ("served", parts[0]) if parts[0] != "slim" else ("tf-slim", SLIM)
        if tuple(parts[:3]) == FRAMEWORK_FRAMEWORK:
            if len(parts) == 3:
                return "package", name
            return ("tf-slim", TENSOR_UTIL) if parts[3:] == ["tensor_util"] else None
        for internal, module in INTERNAL.items():
            if tuple(parts[:3]) != internal:
                continue
            if internal[0] == "framework" and len(parts) == 3:
                # TF 1.15's python/ops/__init__ star-imported its modules: the
                # names of contrib.framework (`arg_scope` the function), and its
                # modules below it (`from ...python.ops import variables`)
                return "ops-level", name
            return "tf-slim", ".".join([module, *parts[3:]])
        if parts[1:] == ["python"]:
            return "package", name
        return ("tf-slim", ".".join([SLIM, *parts[1:]])) if parts[0] == "slim" else None

    def find_spec(self, name, path=None, target=None):
        if self._target(name) is None or not available():
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        kind, what = self._target(spec.name)
        if kind == "tf-slim":
            module = importlib.import_module(what)
        elif kind == "package":
            module = types.ModuleType(what, "a package level of contrib's layout")
            module.__path__ = []
        elif kind == "ops-level":
            framework = self._served("framework")
            module = types.ModuleType(what, framework.__doc__)
            module.__dict__.update((k, v) for k, v in vars(framework).items() if k[:2] != "__")
            module.__getattr__ = framework.__getattr__
            module.__path__ = []  # a from-import of its module names imports them (Finder)
        else:
            module = self._served(what)
        self.loaded.append(spec.name)
        return module

    def _served(self, what: str) -> types.ModuleType:
        if what not in self._made:
            self._made[what] = _served_module("tensorflow.contrib." + what, what)
        return self._made[what]

    def exec_module(self, module):
        pass  # already imported (tf-slim's) or built (create_module)
