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
clusters as TF 2.15 set them up, a strategy on a cluster through the
distribute coordinator's independent-worker mode; its standalone-client mode
refused in one line), the API names as TF 2.15 had them, the TPU modules as names that raise
one line when used (TPU embedding has no CPU meaning; ``TPUEstimator(use_tpu=
False)`` never uses them). ``tf.estimator`` is then tensorflow-estimator's v1
API, TF 1.x's ``tf.estimator``, on every copy of the v1 API (``tf.estimator``
after ``import tensorflow.compat.v1 as tf``, or after ``import tensorflow as
tf`` under ``python -m tf1_train.compat --v1``; ``tf.compat.v1.estimator``),
and its v2 API on ``tensorflow`` and ``tf.compat.v2``, as TF 2.15 had them: a
TF 2 program's ``tf.estimator.DNNClassifier`` is TF 2's, never silently TF
1.x's, whose defaults differ.

Its Estimator, EstimatorSpec, RunConfig, train_and_evaluate, hooks, input
functions, exporters, BaselineClassifier and KMeans are tensorflow-estimator's
own code and run as written; the canned DNN, Linear and DNNLinearCombined
models too, their two logit functions rebuilt without Keras 2
(_estimator_canned.py). What else needs Keras 2 (the TF 2 ``Head`` classes:
Keras 2's metrics and ``keras.__internal__``; ``LinearSDCA``) raises one line
when called (``KERAS2``), and so do the v2 API's canned models, Keras 2 models
with Keras 2 optimizers (``KERAS2_V2``): the line names the v1 class and how
it differs (or, for the RNN estimators, that TF 1.x had none).

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
V2_API = "tensorflow_estimator._api.v2.estimator"
BRIDGE = "tensorflow.python.distribute.estimator_training"
# TF 1.x's forwarding package for the Estimator's modules, which TF 2.16 dropped
# (`from tensorflow.python.estimator import estimator`: tensorflow/tpu's EfficientNet):
# served as the package's modules themselves.
PRIVATE = "tensorflow.python.estimator"
MODULES = "tensorflow_estimator.python.estimator"
INSTALL_HINT = (
    "tf.estimator went from TensorFlow in 2.16: pip install tensorflow-estimator==2.15.0 "
    "(no dependencies of its own) and tf1_train.compat.install() serves it (TF 1.x's "
    "tf.estimator on the v1 API, TF 2's on tensorflow)"
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
# The v2 API's names (TF 2.0-2.15's tf.estimator) whose code needs Keras 2: its
# canned models (Keras 2 models and optimizers) too, besides the heads.
KERAS2_V2 = KERAS2 + tuple(
    """BaselineClassifier BaselineEstimator BaselineRegressor DNNClassifier DNNEstimator
    DNNRegressor DNNLinearCombinedClassifier DNNLinearCombinedEstimator
    DNNLinearCombinedRegressor LinearClassifier LinearEstimator LinearRegressor
    experimental.RNNClassifier experimental.RNNEstimator""".split()
)
KERAS2_V2_WHY = (
    "(TF 2's, after `import tensorflow as tf`) is built on Keras 2 (its models, optimizers "
    "and metrics), which Keras 3 does not have: TF 1.x's tf.compat.v1.estimator.{name} is "
    "served, but differs (v1 optimizers; a canned classifier or regressor sums its loss "
    "over the batch where TF 2's averaged it: "
    "loss_reduction=tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE gives TF 2's)"
)
RNN_WHY = (
    "(TF 2's) is built on Keras 2's recurrent layers, which Keras 3 does not run in a "
    "graph, and TF 1.x had no such class: build the RNN in your model_fn "
    "(tf.compat.v1.nn.dynamic_rnn and the cells of tf.compat.v1.nn.rnn_cell)"
)
# TF 1.15's tf.estimator names tensorflow-estimator 2.15 no longer has (its
# boosted_trees module was deleted; TF 2.21 still has the BoostedTrees* kernels).
GONE = ("BoostedTreesClassifier", "BoostedTreesRegressor", "BoostedTreesEstimator")
GONE_WHY = (
    "is not in tensorflow-estimator 2.15 (its gradient-boosted trees were removed from the "
    "package), so TF 1.15's canned boosted trees cannot be served: train them with "
    "TensorFlow Decision Forests, XGBoost/LightGBM or sklearn's GradientBoosting*"
)
V1_PATH, V2_PATH = "tensorflow.compat.v1.estimator", "tensorflow.estimator"
DESCRIBE = (
    "tensorflow-estimator's code (TF 1.x's tf.estimator on the v1 API, TF 2's on "
    "tensorflow: Estimator, EstimatorSpec, RunConfig, train_and_evaluate, hooks, "
    "exporters; docs/ESTIMATOR.md)"
)


def available() -> bool:
    """Whether tensorflow-estimator is installed (found, not imported)."""
    return importlib.util.find_spec(PACKAGE) is not None


def why(name: str, v2: bool = False) -> str:
    """The one line ``tf.estimator.<name>`` raises (of the v2 API: ``v2``)."""
    if name in GONE:
        return f"tf.estimator.{name} {GONE_WHY}"
    if v2 and name.startswith("experimental.RNN"):
        return f"tf.estimator.{name} {RNN_WHY}"
    if v2 and name not in KERAS2:
        return f"tf.estimator.{name} " + KERAS2_V2_WHY.format(name=name)
    return f"tf.estimator.{name} {KERAS2_WHY}"


def refused(name: str, v2: bool = False):
    """A stand-in for ``tf.estimator.<name>`` that raises one line when called."""
    message = why(name, v2)

    def refuse(*args, **kwargs):
        raise NotImplementedError(message)

    refuse.__name__ = refuse.__qualname__ = name.rsplit(".", 1)[-1]
    refuse.__doc__ = message
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
    _refuse(api, KERAS2, put, v2=False)
    for name in GONE:  # absent from the package: the one line instead of AttributeError
        put(api, name, refused(name))
    return api


def v2_api(put):
    """tensorflow-estimator's v2 API module (TF 2.0-2.15's ``tf.estimator``):
    its Estimator, specs, hooks and exporters as they are, its canned models
    and heads (Keras 2) replaced by one-line refusals."""
    api = importlib.import_module(V2_API)
    _refuse(api, KERAS2_V2, put, v2=True)
    return api


def _refuse(api, names, put, v2: bool) -> None:
    for dotted in names:
        where = api
        *parents, name = dotted.split(".")
        for parent in parents:
            where = getattr(where, parent)
        if getattr(where, name, None) is not None:
            put(where, name, refused(dotted, v2))


def scan_verdict(path: str):
    """For the scanner under ``--compat``: (works, why) for an API path under
    ``tf.estimator`` (``tensorflow.estimator``: the v2 API), None for any
    other path."""
    v2 = path == V2_PATH or path.startswith(V2_PATH + ".")
    if not (v2 or path == V1_PATH or path.startswith(V1_PATH + ".")):
        return None
    if not available():
        return False, INSTALL_HINT
    name = path[len(V2_PATH if v2 else V1_PATH) + 1 :]
    if name.split(".")[0] in GONE:
        return False, why(name.split(".")[0], v2)
    for dotted in KERAS2_V2 if v2 else KERAS2:
        if name == dotted or name.startswith(dotted + "."):
            return False, why(dotted, v2)
    return True, DESCRIBE
