"""Keras 2's modules that TF1-era programs import and Keras 3 does not have.

TF 1.x code bases often used Keras 2 on its own (``import keras``) beside
their graph code: ``from keras.utils import np_utils`` for
``to_categorical``, ``keras.layers.merge``, ``keras.engine.topology``,
``keras.backend.tensorflow_backend`` for the session. TensorFlow 2.21
installs Keras 3 as ``keras``, whose package tree is flat: 50 of Keras
2.3.1's 91 modules are gone, so the import raises ModuleNotFoundError (or
ImportError, or AttributeError on ``keras.utils.np_utils.to_categorical``).
``GONE`` maps each to where its public names are now (a test holds every
``keras.X`` it names to the installed Keras). A use is reported where it
raises, as SciPy's moved modules are (scipy_rules.py).
"""

import ast
from typing import Callable, Dict, Iterator, Optional, Tuple

from tf1_train.compat import _keras2_removed
from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, COMPAT_INSTALL, _rule

ROW = "Keras 2's modules under Keras 3"
_rule(
    "keras2-module",
    BREAKS,
    "{new}: Keras 3, the keras TensorFlow 2.21 installs, has no {module} (Keras 2's "
    "package tree), so this raises",
    "leaves it unchanged and reports nothing (it converts tf.* names, not keras.*)",
    ROW,
)

WRAPPER_ROW = "`tf.keras.layers.Wrapper` around `tf.layers`"
_rule(
    "keras-wrapper-legacy-layer",
    BREAKS,
    "{construct} subclasses Keras' Wrapper in a file that uses tf.layers: on TF 1.x the legacy "
    "layers were Keras 2 layers and Wrapper held them; Keras 3's Wrapper refuses anything but "
    "a Keras 3 layer (ValueError: ... isn't a supported layer type) and has no "
    "_track_checkpointable; for TF2 wrap Keras 3 layers (keras.layers.Conv1D, the variables "
    "made in build with add_weight), " + COMPAT_INSTALL + ", where Wrapper is TF 1.x's",
    "leaves the class unchanged and reports nothing (it renames tf.layers.InputSpec to "
    "tf.keras.layers.InputSpec)",
    WRAPPER_ROW,
)

_BACKEND = (
    "keras.backend's backend-neutral functions, or TensorFlow's own ops; the session "
    "(get_session, set_session): tf.compat.v1.Session / tf.compat.v1.keras.backend with tf_keras"
)
_PREPROCESSING = "tf.keras.preprocessing.{module}.{name} (TensorFlow 2.21 keeps Keras 2's there)"
_TRANSFORMS = (
    "unedited: python -m tf1_train.compat (Keras 2's transforms); "
    "tf.keras.preprocessing.image.{name} is TensorFlow 2.21's copy, whose affine transforms, "
    "ZCA whitening and brightness shifts differ from Keras 2's; or keras.layers.RandomRotation "
    "/ RandomTranslation / RandomZoom (their own random draws)"
)


def _image_fix(name: str) -> str:
    if name in _keras2_removed.TRANSFORMS:  # numbers Keras 3's copy changed
        return _TRANSFORMS.format(name=name)
    return _PREPROCESSING.format(module="image", name=name)


_LAYERS = "keras.layers, the same class names (Keras 3's layers package is flat)"
# Keras 2.3.1's module -> where its public names are in Keras 3
GONE: Dict[str, str] = {
    **{f"keras.backend.{m}": _BACKEND for m in (
        "cntk_backend", "common", "load_backend", "numpy_backend", "tensorflow_backend",
        "theano_backend")},
    "keras.callbacks.callbacks": "keras.callbacks, the same classes",
    "keras.callbacks.tensorboard_v1": "keras.callbacks.TensorBoard",
    "keras.callbacks.tensorboard_v2": "keras.callbacks.TensorBoard",
    "keras.datasets.cifar": "keras.datasets.cifar10.load_data / keras.datasets.cifar100.load_data",
    **{f"keras.engine{m}": (
        "keras.Model, keras.Sequential, keras.layers.Layer, keras.Input, keras.layers.InputLayer; "
        "saving: keras.models.load_model / keras.saving") for m in (
        "", ".base_layer", ".input_layer", ".network", ".saving", ".sequential", ".topology",
        ".training", ".training_arrays", ".training_generator", ".training_utils")},
    **{f"keras.layers.{m}": _LAYERS for m in (
        "advanced_activations", "convolutional", "convolutional_recurrent", "core",
        "embeddings", "local", "merge", "noise", "normalization", "pooling", "recurrent",
        "wrappers")},
    "keras.layers.cudnn_recurrent": "keras.layers.LSTM / keras.layers.GRU (CuDNNLSTM, "
    "CuDNNGRU: cuDNN's kernels when eligible)",
    "keras.legacy.interfaces": "none: Keras 2's argument-renaming shims, gone",
    "keras.legacy.layers": "none: Keras 1's layers, gone (keras.layers for the rest)",
    "keras.objectives": "keras.losses, the same functions",
    "keras.preprocessing.text": "tf.keras.preprocessing.text (TensorFlow 2.21 keeps Keras 2's "
    "Tokenizer there, deprecated), or keras.layers.TextVectorization",
    **{f"keras.preprocessing.image.{n}": _image_fix(n) for n in _keras2_removed.NAMES["image"]},
    **{f"keras.preprocessing.sequence.{n}": _PREPROCESSING.format(module="sequence", name=n)
       for n in _keras2_removed.NAMES["sequence"]},
    "keras.utils.conv_utils": "none: Keras 2's internal helpers",
    "keras.utils.data_utils": "keras.utils.get_file, keras.utils.PyDataset (Sequence's successor)",
    "keras.utils.generic_utils": "keras.utils.Progbar, keras.saving.custom_object_scope, "
    "keras.saving.get_custom_objects",
    "keras.utils.io_utils": "none: HDF5Matrix is gone (h5py, or tf.data)",
    "keras.utils.layer_utils": "model.summary(), keras.utils.plot_model",
    "keras.utils.losses_utils": "none: Keras 2's internal helpers",
    "keras.utils.metrics_utils": "none: Keras 2's internal helpers",
    "keras.utils.multi_gpu_utils": "tf.distribute.MirroredStrategy (multi_gpu_model is gone)",
    "keras.utils.np_utils": "keras.utils.to_categorical, keras.utils.normalize",
    "keras.utils.test_utils": "none: Keras 2's test helpers",
    "keras.utils.vis_utils": "keras.utils.plot_model, keras.utils.model_to_dot",
    "keras.wrappers.scikit_learn": "scikeras.wrappers.KerasClassifier / KerasRegressor "
    "(the scikeras package)",
}  # fmt: skip


def _gone(path: Optional[str]) -> Optional[str]:
    """The gone module `path` is or lies in, else None."""
    while path and path.startswith("keras."):
        if path in GONE:
            return path
        path = path.rsplit(".", 1)[0]
    return None


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each import or outermost attribute read
    of a Keras 2 module Keras 3 lacks."""
    keras = Aliases(tree, roots=("keras",))
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            paths = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            paths = [a.name for a in node.names]
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            paths = [keras.resolve(node)]
        else:
            continue
        module = next(filter(None, map(_gone, paths)), None)
        if module:
            construct = ast.unparse(node) if isinstance(node, ast.Attribute) else module
            fills = {"module": module, "new": GONE[module]}
            if _keras2_removed.served(module):
                fills["installed_works"] = _keras2_removed.DESCRIBE
            yield node, "keras2-module", construct, fills


def wrapper_findings(
    tree: ast.AST, resolve: Callable[[ast.AST], Optional[str]]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each class deriving from TensorFlow's Keras ``Wrapper`` in a file that
    reads ``tf.layers`` (the layers it wraps are legacy ones there)."""
    paths = (resolve(n) or "" for n in ast.walk(tree) if isinstance(n, (ast.Attribute, ast.Name)))
    if not any(p.startswith(("tensorflow.layers.", "tensorflow.compat.v1.layers.")) for p in paths):
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            path = resolve(base) or ""
            if path.startswith("tensorflow.") and path.endswith(".keras.layers.Wrapper"):
                yield node, "keras-wrapper-legacy-layer", node.name, {"construct": node.name}
