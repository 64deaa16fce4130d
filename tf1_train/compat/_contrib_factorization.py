"""``tf.contrib.factorization``'s k-means after install(), as TF 1.15 computed it.

TF 1.x k-means programs (TensorFlow-Examples' ``kmeans.py``, the KMeansClustering
tutorials) built ``KMeans(inputs, k).training_graph()`` or trained the
``KMeansClustering`` Estimator. TensorFlow 2.21 still has both, on the same kernels:
the graph builder (``tensorflow.python.ops.clustering_ops.KMeans``) and, in
tensorflow-estimator 2.15, the Estimator (``tf.compat.v1.estimator.experimental.KMeans``).
contrib's copies differed from them in what moves a user's numbers:

- the seed: contrib gave ``random_seed`` (default 0) to the kernels and the random
  draws as it was, so the initial centres were the same under any graph seed; core runs
  it through the graph seed first, and starts from other centres;
- ``KMeansClustering.transform`` returned squared distances for the squared-Euclidean
  metric; the Estimator's returns their square root;
- the centres' variable started from a constant ``[]`` (core: a placeholder with that
  default, one op more, which ``--v1_seeds`` counts; served for reference variables).

So ``KMeans`` is core's with contrib's seed and variables, and ``KMeansClustering`` the
Estimator's with contrib's seed and transform (tensorflow-estimator installed). ``GMM``,
``gmm`` and the WALS classes are not served: the WALS kernels left TensorFlow with
contrib, and contrib's Gaussian mixture was code of its own; their line says so.
"""

from __future__ import annotations

import contextlib
import functools

from tensorflow.python.ops import array_ops, clustering_ops
from tensorflow.python.ops.resource_variables_toggle import resource_variables_enabled

COSINE_DISTANCE = clustering_ops.COSINE_DISTANCE
SQUARED_EUCLIDEAN_DISTANCE = clustering_ops.SQUARED_EUCLIDEAN_DISTANCE
RANDOM_INIT = clustering_ops.RANDOM_INIT
KMEANS_PLUS_PLUS_INIT = clustering_ops.KMEANS_PLUS_PLUS_INIT
KMC2_INIT = clustering_ops.KMC2_INIT
KEPT = ("KMeans", "KMeansClustering", "COSINE_DISTANCE", "SQUARED_EUCLIDEAN_DISTANCE",
        "RANDOM_INIT", "KMEANS_PLUS_PLUS_INIT", "KMC2_INIT")  # fmt: skip
GONE = (
    "its k-means is kept (KMeans, KMeansClustering with tensorflow-estimator installed); "
    "GMM and gmm: sklearn.mixture.GaussianMixture or TensorFlow Probability's "
    "MixtureSameFamily; WALSModel and WALSMatrixFactorization (kernels that left TensorFlow "
    "with contrib): an embedding model trained on the observed entries, or implicit's ALS"
)


class KMeans(clustering_ops.KMeans):
    """contrib's graph builder: ``random_seed`` handed to the kernels as it is."""

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, use_mini_batch=False,
                 mini_batch_steps_per_iteration=1, random_seed=0,
                 kmeans_plus_plus_num_retries=2, kmc2_chain_length=200):  # fmt: skip
        super().__init__(
            inputs, num_clusters, initial_clusters=initial_clusters,
            distance_metric=distance_metric, use_mini_batch=use_mini_batch,
            mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
            random_seed=random_seed, kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries,
            kmc2_chain_length=kmc2_chain_length)  # fmt: skip
        self._seed = random_seed  # core: get_seed(random_seed)[0], the graph seed's

    def _create_variables(self, num_clusters):
        """Core's variables; reference ones (``--v1_variables``) start from a constant ``[]``.

        As contrib's did: one op fewer, which ``--v1_seeds`` counts. A resource variable
        started so would take the shape ``[0]``, so core's placeholder stays for those.
        """
        if resource_variables_enabled():
            return super()._create_variables(num_clusters)
        with _constant_empty_start():
            return super()._create_variables(num_clusters)


@contextlib.contextmanager
def _constant_empty_start():
    """``placeholder_with_default([], shape=None)`` built as ``constant([])`` for a while."""
    module = clustering_ops.array_ops
    clustering_ops.array_ops = _ArrayOps(lambda value, shape: array_ops.constant(value, "float32"))
    try:
        yield
    finally:
        clustering_ops.array_ops = module


class _ArrayOps:
    """``array_ops`` with one function replaced."""

    def __init__(self, placeholder_with_default):
        self.placeholder_with_default = placeholder_with_default

    def __getattr__(self, name):
        return getattr(array_ops, name)


@functools.cache
def _kmeans_clustering():
    from tensorflow_estimator.python.estimator.canned import kmeans as estimator_kmeans

    class KMeansClustering(estimator_kmeans.KMeansClustering):
        """contrib's Estimator: ``random_seed`` as it is, transform's squared distances."""

        def __init__(self, num_clusters, model_dir=None, initial_clusters=RANDOM_INIT,
                     distance_metric=SQUARED_EUCLIDEAN_DISTANCE, random_seed=0,
                     use_mini_batch=True, mini_batch_steps_per_iteration=1,
                     kmeans_plus_plus_num_retries=2, relative_tolerance=None, config=None,
                     feature_columns=None):  # fmt: skip
            super().__init__(
                num_clusters, model_dir=model_dir, initial_clusters=initial_clusters,
                distance_metric=distance_metric, seed=random_seed,
                use_mini_batch=use_mini_batch,
                mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
                kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries,
                relative_tolerance=relative_tolerance, config=config,
                feature_columns=feature_columns)  # fmt: skip
            core_model_fn = self._model_fn

            def model_fn(features, mode, config):
                """The Estimator's model_fn, building contrib's ``KMeans``."""
                with _contrib_kmeans(estimator_kmeans):
                    return core_model_fn(features, mode, config)

            self._model_fn = model_fn

        def transform(self, input_fn):
            """Each input's distance to every centre (squared, for the squared metric)."""
            for predictions in self.predict(input_fn=input_fn,
                                            predict_keys=[self.ALL_DISTANCES]):  # fmt: skip
                yield predictions[self.ALL_DISTANCES]

    return KMeansClustering


@contextlib.contextmanager
def _contrib_kmeans(module):
    """``module.clustering_ops.KMeans`` is contrib's while the model function builds."""
    core = module.clustering_ops
    module.clustering_ops = _Clustering()
    try:
        yield
    finally:
        module.clustering_ops = core


class _Clustering:
    """``clustering_ops`` with contrib's ``KMeans``."""

    KMeans = KMeans

    def __getattr__(self, name):
        return getattr(clustering_ops, name)


def kept(name: str) -> bool:
    """Whether ``tf.contrib.factorization.<name>`` works after install()."""
    from tf1_train.compat import _estimator

    return name in KEPT and (name != "KMeansClustering" or _estimator.available())


def resolve(name: str):
    """``tf.contrib.factorization.<name>`` after install()."""
    if name == "KMeansClustering":
        from tf1_train.compat import _estimator

        if not _estimator.available():
            raise AttributeError(
                f"tensorflow.contrib.factorization.{name}: {_estimator.INSTALL_HINT}"
            )
        return _kmeans_clustering()
    return globals()[name]
