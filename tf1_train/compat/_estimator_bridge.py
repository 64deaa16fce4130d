"""``tensorflow.python.distribute.estimator_training`` for tensorflow-estimator
2.15 on TensorFlow 2.16+ (which removed the module): how a ``RunConfig``
with a distribution strategy is set up, and how ``train_and_evaluate`` runs
it on a cluster.

Served as TF 2.15 did it:

- a ``train_distribute=``/``eval_distribute=`` strategy (or the same in
  ``experimental_distribute=DistributeConfig(...)``) in one process;
- a TF_CONFIG cluster with a ``master`` job, or without a strategy
  (between-graph replication: ``RunConfig`` reads the cluster and the
  Estimator places its variables with ``replica_device_setter``);
- a strategy on a TF_CONFIG cluster without ``master``: the distribute
  coordinator's independent-worker mode, still in TensorFlow 2.21
  (``distribute_coordinator``). ``train_and_evaluate`` hands each task to
  it: it starts the task's gRPC server, configures the strategy for the
  cluster (``MultiWorkerMirroredStrategy``'s collective all-reduce,
  ``ParameterServerStrategy``'s ps tasks), and runs a copy of the Estimator
  with the worker's context; an ``evaluator`` task evaluates each new
  checkpoint.

``DistributeConfig(remote_cluster=...)`` (the standalone-client mode) and
``Estimator.train``/``evaluate`` called directly in the independent-worker
mode raise one line (the second as on TF 2.15).
"""

from __future__ import annotations

import copy

STANDALONE = (
    "DistributeConfig(remote_cluster=...) ran Estimator through the distribute "
    "coordinator's standalone-client mode, which tf1_train.compat does not serve: give "
    "each task a TF_CONFIG and call tf.estimator.train_and_evaluate in every task (the "
    "independent-worker mode)"
)
DIRECT = (
    "Estimator.{method}() with a strategy on a TF_CONFIG cluster without a 'master' job: "
    "call tf.estimator.train_and_evaluate, which runs each task through the distribute "
    "coordinator (as on TF 2.15, only it does)"
)


def _coordinator():
    from tensorflow.python.distribute import distribute_coordinator

    return distribute_coordinator


def init_run_config(config, tf_config: dict) -> None:
    """Sets ``config``'s strategies and cluster fields (RunConfig calls this
    when it is given a strategy): the coordinator's independent-worker mode
    for a strategy on a cluster without ``master``, else no coordinator."""
    from tensorflow.python.training import server_lib

    experimental = getattr(config, "_experimental_distribute", None)
    for field in ("train_distribute", "eval_distribute"):
        chosen = getattr(experimental, field, None) if experimental else None
        if chosen:
            if getattr(config, "_" + field):
                raise ValueError(
                    f"RunConfig: set {field} or experimental_distribute.{field}, not both"
                )
            setattr(config, "_" + field, chosen)
    if config._train_distribute and getattr(experimental, "remote_cluster", None):
        raise NotImplementedError(STANDALONE)
    cluster = server_lib.ClusterSpec((tf_config or {}).get("cluster", {}))
    config._init_distributed_setting_from_environment_var({})
    if not tf_config or "master" in cluster.jobs or not config._train_distribute:
        config._distribute_coordinator_mode = None
        config._init_distributed_setting_from_environment_var(tf_config)
        config._maybe_overwrite_session_config_for_distributed_training()
        return
    config._cluster_spec = cluster  # the rest comes from the coordinator's worker context
    config._distribute_coordinator_mode = _coordinator().CoordinatorMode.INDEPENDENT_WORKER


def should_run_distribute_coordinator(config) -> bool:
    """Whether ``train_and_evaluate`` hands the run to the coordinator."""
    mode = getattr(config, "_distribute_coordinator_mode", None)
    return mode == _coordinator().CoordinatorMode.INDEPENDENT_WORKER and bool(config.cluster_spec)


def train_and_evaluate(estimator, train_spec, eval_spec, executor_cls) -> None:
    """This task's part of the cluster's run, through the coordinator: a
    worker (or the chief) trains a copy of ``estimator`` with the strategy
    configured for the cluster, an evaluator evaluates each new checkpoint."""
    config = estimator.config
    if not config._distribute_coordinator_mode:
        raise ValueError("Distribute coordinator mode is not specified in `RunConfig`.")
    coordinator = _coordinator()

    def worker_fn(strategy) -> None:
        local = _local_copy(estimator, "_train_distribute", strategy)
        local._train_distribution = strategy
        local.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks))  # fmt: skip

    def eval_fn(strategy) -> None:
        local = _local_copy(estimator, "_eval_distribute", strategy)
        local._eval_distribution = strategy
        executor_cls(local, train_spec, eval_spec)._start_continuous_evaluation()

    coordinator.run_distribute_coordinator(
        worker_fn, config.train_distribute, eval_fn, config.eval_distribute,
        mode=config._distribute_coordinator_mode, cluster_spec=None,
        session_config=config.session_config,
    )  # fmt: skip


def _local_copy(estimator, field: str, strategy):
    """A copy of ``estimator`` configured from the coordinator's context for
    this task, that no longer calls the coordinator itself."""
    from tensorflow.python.distribute import distribute_coordinator_context

    local = copy.deepcopy(estimator)
    setattr(local._config, field, strategy)
    _from_worker_context(local._config, distribute_coordinator_context.get_current_worker_context())
    local._config._distribute_coordinator_mode = None
    return local


def _from_worker_context(config, context) -> None:
    """The task fields of ``config`` as the coordinator set this task up."""
    from tensorflow.python.training import server_lib

    config._service = None
    config._cluster_spec, config._is_chief = context.cluster_spec, context.is_chief
    config._task_type, config._task_id = context.task_type, context.task_id
    config._master = config._evaluation_master = context.master_target
    if not config._cluster_spec:
        config._global_id_in_cluster, config._num_ps_replicas, config._num_worker_replicas = (
            0, 0, 1)  # fmt: skip
    elif config._task_type == "evaluator":  # an evaluator knows no other task
        config._cluster_spec = server_lib.ClusterSpec({})
        config._num_ps_replicas = config._num_worker_replicas = 0
        config._global_id_in_cluster = None
    else:
        jobs = config._cluster_spec.as_dict()
        config._num_ps_replicas = len(jobs.get("ps", []))
        config._num_worker_replicas = len(jobs.get("worker", [])) + len(jobs.get("chief", []))
        config._global_id_in_cluster = _global_id(config._cluster_spec, config._task_type,
                                                  config._task_id)  # fmt: skip


def _global_id(cluster, task_type: str, task_id: int) -> int:
    """RunConfig.global_id_in_cluster: chief first, then the other jobs by
    name, ps last. Not run_config's own helper: it puts a chief first even in
    a cluster that has none and then raises, where a worker-only cluster is
    the usual MultiWorkerMirroredStrategy setup (TF 2.15's bridge checked)."""
    order = (
        (["chief"] if "chief" in cluster.jobs else [])
        + sorted(j for j in cluster.jobs if j not in ("chief", "ps"))
        + (["ps"] if "ps" in cluster.jobs else [])
    )
    before = 0
    for job in order:
        if job == task_type:
            return before + task_id
        before += len(cluster.job_tasks(job))
    raise RuntimeError(f"task type {task_type!r} is not in the cluster {cluster}")


def estimator_train(estimator, *args, **kwargs):
    raise ValueError(DIRECT.format(method="train"))


def estimator_evaluate(estimator, *args, **kwargs):
    raise ValueError(DIRECT.format(method="evaluate"))
