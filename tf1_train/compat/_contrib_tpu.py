"""``tf.contrib.tpu`` and ``tf.contrib.cluster_resolver`` after install(): the
names TF 1.x Estimator code bases (BERT's ``run_classifier.py``,
``run_pretraining.py``, ``run_squad.py`` and their many copies) reach there
even with ``use_tpu=False``.

TF 1.15's ``tf.contrib.tpu`` re-exported the TPU Estimator
(``TPUEstimator``, ``TPUEstimatorSpec``, ``RunConfig``, ``TPUConfig``,
``InputPipelineConfig``: tensorflow-estimator's ``tf.estimator.tpu`` now,
served when it is installed, _estimator.py) and TensorFlow's own TPU ops
(``CrossShardOptimizer``, ``bfloat16_scope``, ``shard``, ``rewrite``, ...:
TensorFlow 2.21's ``tf.compat.v1.tpu``, the same objects).
``tf.contrib.cluster_resolver`` re-exported TensorFlow's cluster resolvers:
``tf.distribute.cluster_resolver``'s (``UnionClusterResolver`` is its
``UnionResolver``, ``GceClusterResolver`` its ``GCEClusterResolver``). Every
other name raises one line.
"""

from __future__ import annotations

ESTIMATOR_NAMES = (
    "InputPipelineConfig",
    "RunConfig",
    "TPUConfig",
    "TPUEstimator",
    "TPUEstimatorSpec",
)
CORE_NAMES = (
    "CrossShardOptimizer",
    "batch_parallel",
    "bfloat16_scope",
    "core",
    "cross_replica_sum",
    "initialize_system",
    "outside_compilation",
    "replicate",
    "rewrite",
    "shard",
    "shutdown_system",
)
TPU_KEPT = ESTIMATOR_NAMES + CORE_NAMES
TPU_GONE = (
    "the TPU Estimator names (TPUEstimator, TPUEstimatorSpec, RunConfig, TPUConfig, "
    "InputPipelineConfig: tensorflow-estimator's tf.estimator.tpu) and TensorFlow's TPU "
    "ops (CrossShardOptimizer, bfloat16_scope, shard, rewrite, ...) are kept; "
    "for the rest: tf.distribute.TPUStrategy"
)
# tf.contrib.cluster_resolver's name: tf.distribute.cluster_resolver's
RESOLVERS = {
    "ClusterResolver": "ClusterResolver",
    "SimpleClusterResolver": "SimpleClusterResolver",
    "UnionClusterResolver": "UnionResolver",
    "GceClusterResolver": "GCEClusterResolver",
    "GCEClusterResolver": "GCEClusterResolver",
    "KubernetesClusterResolver": "KubernetesClusterResolver",
    "SlurmClusterResolver": "SlurmClusterResolver",
    "TFConfigClusterResolver": "TFConfigClusterResolver",
    "TPUClusterResolver": "TPUClusterResolver",
}
RESOLVERS_KEPT = tuple(RESOLVERS)
RESOLVERS_GONE = "its resolvers are kept: tf.distribute.cluster_resolver's"


def tpu_kept(name: str) -> bool:
    """Whether ``tf.contrib.tpu.<name>`` works after install()."""
    from tf1_train.compat import _estimator

    return name in CORE_NAMES or (name in ESTIMATOR_NAMES and _estimator.available())


def tpu(name: str):
    """``tf.contrib.tpu.<name>``: the estimator's or TensorFlow's object."""
    import tensorflow as tf

    if name in CORE_NAMES:
        return getattr(tf.compat.v1.tpu, name)
    from tf1_train.compat import _estimator

    if not _estimator.available():
        raise AttributeError(f"tensorflow.contrib.tpu.{name}: {_estimator.INSTALL_HINT}")
    return getattr(tf.compat.v1.estimator.tpu, name)


def cluster_resolver(name: str):
    """``tf.contrib.cluster_resolver.<name>``: TensorFlow's resolver."""
    import tensorflow as tf

    return getattr(tf.distribute.cluster_resolver, RESOLVERS[name])
