"""``tf.contrib.distribute`` after install(): TF 1.12-1.14's spelling of
the distribution strategies, as Estimator code bases of that time used them
(tensorflow/models' official models: ``MirroredStrategy(num_gpus=N)``,
``OneDeviceStrategy('/cpu:0')``; multi-worker Estimators:
``CollectiveAllReduceStrategy(num_gpus_per_worker=...)``,
``ParameterServerStrategy()``).

TF 1.15's contrib classes were thin subclasses of the core v1 strategies,
with device counts in place of device lists. Each is served as the core v1
strategy TensorFlow 2.21 keeps (``tf.compat.v1.distribute``), with the
count turned into the devices it named. ``num_gpus=N`` names ``/gpu:0`` to
``/gpu:N-1``, and under ``--gpus_as_cpus`` those run on N CPU devices. The
multi-worker classes take ``num_gpus_per_worker=0``, which is what runs on
CPUs; other counts raise one line, since TensorFlow's v1 classes use every
local GPU. ``DistributeConfig`` is TensorFlow's own, and contrib's context
functions are ``tf.distribute``'s. The rest raises one line. That covers
``TPUStrategy`` and the ``Step`` and ``Monitor`` classes.
"""

from __future__ import annotations

from typing import Optional, Sequence

# name: tf.compat.v1.distribute's name for the same object
FROM_CORE = {
    "get_replica_context": "get_replica_context",
    "in_cross_replica_context": "in_cross_replica_context",
    "has_distribution_strategy": "has_strategy",
    "get_distribution_strategy": "get_strategy",
    "get_loss_reduction": "get_loss_reduction",
    "ReplicaContext": "ReplicaContext",
    "DistributionStrategy": "Strategy",
    "CrossDeviceOps": "CrossDeviceOps",
    "ReductionToOneDevice": "ReductionToOneDevice",
}
BUILT = ("MirroredStrategy", "OneDeviceStrategy", "CollectiveAllReduceStrategy",
         "ParameterServerStrategy", "DistributeConfig")  # fmt: skip
KEPT = tuple(FROM_CORE) + BUILT
GONE = (
    "MirroredStrategy, OneDeviceStrategy, CollectiveAllReduceStrategy, "
    "ParameterServerStrategy (as tf.compat.v1.distribute's), DistributeConfig and the "
    "replica-context functions are kept; AllReduceCrossDeviceOps: "
    "tf.distribute.NcclAllReduce or HierarchicalCopyAllReduce; TPUStrategy: "
    "tf.distribute.TPUStrategy; the Step and Monitor helpers: a Session loop"
)
_PER_WORKER = (
    "tf.contrib.distribute.{cls}(num_gpus_per_worker={n}): TensorFlow's v1 class uses every "
    "GPU of each worker; pass num_gpus_per_worker=0 on CPU workers, or use "
    "tf.distribute.experimental.{core}() on GPU workers"
)


def _v1():
    import tensorflow as tf

    return tf.compat.v1.distribute


def MirroredStrategy(  # noqa: N802 (contrib's class name)
    devices: Optional[Sequence[str]] = None,
    num_gpus: Optional[int] = None,
    num_gpus_per_worker: Optional[int] = None,
    cross_device_ops=None,
    auto_shard_dataset: bool = False,
    cross_tower_ops=None,
):
    """contrib's MirroredStrategy: ``num_gpus`` (or ``num_gpus_per_worker``)
    GPUs of this machine, or ``devices``; ``num_gpus=0`` the CPU."""
    count = num_gpus if num_gpus is not None else num_gpus_per_worker
    if devices is not None and count is not None:
        raise ValueError("Must specify at most one of `devices` and `num_gpus`.")
    if auto_shard_dataset:
        raise NotImplementedError(
            "tf.contrib.distribute.MirroredStrategy(auto_shard_dataset=True) split the "
            "dataset by files across workers; one machine's towers read it whole, as "
            "tf.compat.v1.distribute.MirroredStrategy does"
        )
    if count is not None:
        devices = [f"/gpu:{i}" for i in range(count)] if count else ["/cpu:0"]
    return _v1().MirroredStrategy(devices, cross_device_ops=cross_device_ops or cross_tower_ops)


def OneDeviceStrategy(device: str):  # noqa: N802
    return _v1().OneDeviceStrategy(device)


def CollectiveAllReduceStrategy(num_gpus_per_worker: int = 0, communication=None):  # noqa: N802
    """contrib's multi-worker all-reduce: TF_CONFIG's cluster, CPU workers."""
    if num_gpus_per_worker:
        raise ValueError(_PER_WORKER.format(
            cls="CollectiveAllReduceStrategy", n=num_gpus_per_worker,
            core="MultiWorkerMirroredStrategy"))  # fmt: skip
    strategy = _v1().experimental.MultiWorkerMirroredStrategy
    return strategy(communication) if communication is not None else strategy()


def ParameterServerStrategy(num_gpus_per_worker: int = 0):  # noqa: N802
    """contrib's parameter-server strategy: TF_CONFIG's ps tasks, CPU workers."""
    if num_gpus_per_worker:
        raise ValueError(_PER_WORKER.format(
            cls="ParameterServerStrategy", n=num_gpus_per_worker,
            core="ParameterServerStrategy"))  # fmt: skip
    return _v1().experimental.ParameterServerStrategy()


def resolve(name: str):
    """``tf.contrib.distribute.<name>``."""
    if name in FROM_CORE:
        return getattr(_v1(), FROM_CORE[name])
    if name == "DistributeConfig":
        from tensorflow.python.distribute.distribute_config import DistributeConfig

        return DistributeConfig
    return globals()[name]
