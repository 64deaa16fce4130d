"""``tensorflow.python.distribute.estimator_training`` for tensorflow-estimator
2.15 on TensorFlow 2.16+ (which removed the module): how a ``RunConfig``
with a distribution strategy is set up, and whether ``train_and_evaluate``
hands the run to the distribute coordinator.

What is served is every setup that runs without the coordinator, as TF 2.15
did it: a ``train_distribute=``/``eval_distribute=`` strategy (or the same
in ``experimental_distribute=DistributeConfig(...)``) in one process, and a
TF_CONFIG cluster with a ``master`` job or without a strategy (between-graph
replication: ``RunConfig`` reads the cluster and the Estimator places its
variables with ``replica_device_setter``, ``train_and_evaluate`` starts the
task's gRPC server). The coordinator's two modes (a strategy with a TF_CONFIG
cluster that has no ``master``, or ``DistributeConfig(remote_cluster=...)``)
raise one line: the coordinator's Estimator side went with the module.
"""

from __future__ import annotations

COORDINATOR = (
    "a distribution strategy on a TF_CONFIG cluster without a 'master' job (or "
    "DistributeConfig(remote_cluster=...)) ran Estimator through the distribute "
    "coordinator, whose Estimator side went from TensorFlow 2.16 and is not served by "
    "tf1_train.compat: drop train_distribute for between-graph replication on the "
    "cluster (RunConfig places variables on the ps tasks), or run the strategy in one "
    "process"
)


def init_run_config(config, tf_config: dict) -> None:
    """Sets ``config``'s strategies and cluster fields (RunConfig calls this
    when it is given a strategy); raises for the coordinator's modes."""
    experimental = getattr(config, "_experimental_distribute", None)
    for field in ("train_distribute", "eval_distribute"):
        chosen = getattr(experimental, field, None) if experimental else None
        if chosen:
            if getattr(config, "_" + field):
                raise ValueError(
                    f"RunConfig: set {field} or experimental_distribute.{field}, not both"
                )
            setattr(config, "_" + field, chosen)
    remote = getattr(experimental, "remote_cluster", None) if experimental else None
    cluster = (tf_config or {}).get("cluster", {})
    if config._train_distribute and (remote or (tf_config and "master" not in cluster)):
        raise NotImplementedError(COORDINATOR)
    config._distribute_coordinator_mode = None
    config._init_distributed_setting_from_environment_var(tf_config)
    config._maybe_overwrite_session_config_for_distributed_training()


def should_run_distribute_coordinator(config) -> bool:
    """False unless something set a coordinator mode by hand (then
    ``train_and_evaluate`` below says it is not served)."""
    return getattr(config, "_distribute_coordinator_mode", None) is not None


def train_and_evaluate(*args, **kwargs):
    raise NotImplementedError(COORDINATOR)


def estimator_train(*args, **kwargs):
    raise NotImplementedError(COORDINATOR)


def estimator_evaluate(*args, **kwargs):
    raise NotImplementedError(COORDINATOR)
