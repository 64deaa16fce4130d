"""``tf.estimator`` after install(), served by tensorflow-estimator when it is
installed.

TensorFlow 2.16 stopped shipping ``tf.estimator``; its code lives on in the
``tensorflow-estimator`` package (2.15.0, the last release, with no
dependencies of its own), which no longer imports on TensorFlow 2.16+
because three things it reads at import went from TensorFlow:

- ``tensorflow.python.distribute.estimator_training``, the bridge between
  ``RunConfig``/``train_and_evaluate`` and the distribute coordinator;
- ``tf_export.ESTIMATOR_API_NAME`` and its attribute names, which its
  ``@estimator_export`` decorator hands to TensorFlow's;
- ``tensorflow.python.tpu.tpu_embedding``, ``tpu_embedding_gradient`` and
  ``session_support``, which ``tf.estimator.tpu`` imports at load.

install() puts each back: the bridge as ours (_estimator_bridge.py: a
single-process ``RunConfig``, ``train_distribute=`` strategies and TF_CONFIG
clusters as TF 2.15 set them up; the coordinator's own modes refused in one
line), the API names as TF 2.15 had them, the TPU modules as names that raise
one line when used (TPU embedding has no CPU meaning; ``TPUEstimator(use_tpu=
False)`` never uses them). ``tf.estimator`` is then tensorflow-estimator's v1
API, TF 1.x's ``tf.estimator``, wherever a program reaches it:
``tf.estimator`` after ``import tensorflow as tf`` or ``import
tensorflow.compat.v1 as tf``, ``tf.compat.v1.estimator``.

Its Estimator, EstimatorSpec, RunConfig, train_and_evaluate, hooks, input
functions, exporters, BaselineClassifier and KMeans are tensorflow-estimator's
own code and run as written; the canned DNN, Linear and DNNLinearCombined
models too, their two logit functions rebuilt without Keras 2
(_estimator_canned.py). What else needs Keras 2 (the TF 2 ``Head`` classes:
Keras 2's metrics and ``keras.__internal__``; ``LinearSDCA``) raises one line
when called (``KERAS2``).

Without tensorflow-estimator nothing is imported or set: ``tf.estimator``
stays TensorFlow 2.21's AttributeError, so ``hasattr`` and ``except
AttributeError`` fallbacks behave as before (the scanner says what to install).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

PACKAGE = "tensorflow_estimator"
V1_API = "tensorflow_estimator._api.v1.estimator"
BRIDGE = "tensorflow.python.distribute.estimator_training"
INSTALL_HINT = (
    "tf.estimator went from TensorFlow in 2.16: pip install tensorflow-estimator==2.15.0 "
    "(no dependencies of its own) and tf1_train.compat.install() serves it as TF 1.x's "
    "tf.estimator"
)
# What tf.estimator.tpu imports from TensorFlow modules 2.16 removed.
TPU_MODULES = {
    "tensorflow.python.tpu.tpu_embedding": (
        "AdagradParameters",
        "AdamParameters",
        "FtrlParameters",
        "MomentumParameters",
        "ProximalAdagradParameters",
        "RMSPropParameters",
        "StochasticGradientDescentParameters",
        "TPUEmbedding",
        "TableConfig",
        "FeatureConfig",
        "VariablesAndSlots",
        "get_default_slot_variable_names",
    ),
    "tensorflow.python.tpu.tpu_embedding_gradient": (
        "get_gradients_through_dummy_table_variables",
        "create_dummy_table_variables",
        "hook_dummy_table_variables_to_activations",
    ),
    "tensorflow.python.tpu.session_support": (
        "GracefulShutdownHook",
        "ResetComputation",
        "ShutdownAllWorkers",
        "ShutdownLameWorkers",
        "WatchdogManager",
    ),
}
# v1 API names (under tf.estimator) whose code needs Keras 2.
KERAS2 = (
    "BinaryClassHead",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "RegressionHead",
    "LogisticRegressionHead",
    "PoissonRegressionHead",
    "experimental.LinearSDCA",
)
KERAS2_WHY = (
    "is built on Keras 2 (Keras 2's metrics, losses and keras.__internal__; LinearSDCA: "
    "its LinearModel), which Keras 3 does not have: the TF 1.x canned Estimators "
    "(DNNClassifier, LinearClassifier, ...) take their v1 heads, or compute the loss in "
    "your model_fn with tf.compat.v1.losses"
)


API_PATHS = ("tensorflow.estimator", "tensorflow.compat.v1.estimator")
DESCRIBE = (
    "tensorflow-estimator's code as TF 1.x's tf.estimator (Estimator, EstimatorSpec, "
    "RunConfig, train_and_evaluate, hooks, inputs, exporters; docs/ESTIMATOR.md)"
)


def available() -> bool:
    """Whether tensorflow-estimator is installed (found, not imported)."""
    return importlib.util.find_spec(PACKAGE) is not None


def refused(name: str):
    """A stand-in for ``tf.estimator.<name>`` that raises one line when called."""

    def refuse(*args, **kwargs):
        raise NotImplementedError(f"tf.estimator.{name} {KERAS2_WHY}")

    refuse.__name__ = refuse.__qualname__ = name.rsplit(".", 1)[-1]
    refuse.__doc__ = f"tf.estimator.{name} {KERAS2_WHY}."
    return refuse


def _tpu_module(name: str, names) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__doc__ = "Placeholder (tf1_train.compat): TPU embedding went from TensorFlow 2.16."

    def placeholder(attribute: str):
        def gone(*args, **kwargs):
            raise NotImplementedError(
                f"{name}.{attribute}: TPU embedding and TPU session support went from "
                "TensorFlow 2.16 and have no CPU meaning; TPUEstimator(use_tpu=False) "
                "runs without them"
            )

        gone.__name__ = gone.__qualname__ = attribute
        return gone

    for attribute in names:
        setattr(module, attribute, placeholder(attribute))
    return module


def prepare(put) -> None:
    """Puts back what tensorflow-estimator 2.15 imports from TensorFlow,
    each through ``put(where, name, value)`` (install()'s ``_set``, so
    uninstall() takes it out again)."""
    from tensorflow.python import distribute
    from tensorflow.python.util import tf_export

    from tf1_train.compat import _estimator_bridge

    if not hasattr(tf_export, "ESTIMATOR_API_NAME"):
        put(tf_export, "ESTIMATOR_API_NAME", "estimator")
    attributes = tf_export._Attributes
    put(
        tf_export.API_ATTRS,
        "estimator",
        attributes("_estimator_api_names", "_estimator_api_constants"),
    )
    put(
        tf_export.API_ATTRS_V1,
        "estimator",
        attributes("_estimator_api_names_v1", "_estimator_api_constants_v1"),
    )
    if BRIDGE not in sys.modules:
        put(sys.modules, BRIDGE, _estimator_bridge)
        put(distribute, "estimator_training", _estimator_bridge)
    for name, names in TPU_MODULES.items():
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            put(sys.modules, name, _tpu_module(name, names))


def v1_api(put):
    """tensorflow-estimator's v1 API module (TF 1.x's ``tf.estimator``): the
    canned models' logit functions rebuilt without Keras 2
    (_estimator_canned.py), what else needs Keras 2 replaced by one-line
    refusals."""
    from tf1_train.compat import _estimator_canned

    api = importlib.import_module(V1_API)
    _estimator_canned.install(put)
    for _, name in _estimator_canned.BUILDERS:
        put(api.experimental, name, getattr(_estimator_canned, name))
    for dotted in KERAS2:
        where = api
        *parents, name = dotted.split(".")
        for parent in parents:
            where = getattr(where, parent)
        if getattr(where, name, None) is not None:
            put(where, name, refused(dotted))
    return api


def scan_verdict(path: str):
    """For the scanner under ``--compat``: (works, why) for an API path under
    ``tf.estimator``, None for any other path."""
    prefix = next((p for p in API_PATHS if path == p or path.startswith(p + ".")), None)
    if prefix is None:
        return None
    if not available():
        return False, INSTALL_HINT
    name = path[len(prefix) + 1 :]
    for dotted in KERAS2:
        if name == dotted or name.startswith(dotted + "."):
            return False, f"tf.estimator.{dotted} {KERAS2_WHY}"
    return True, DESCRIBE
