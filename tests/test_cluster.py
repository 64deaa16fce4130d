"""The cluster description: flags, TF_CONFIG, validation, ports, device setters.

Fast, single-process tests; the multi-process ones are in test_distributed.py.
"""

import dataclasses
import json
import socket

import pytest
import tensorflow as tf

from tf1_train import devices
from tf1_train.cluster import server, spec
from tf1_train.config import ClusterConfig, Config, DeviceConfig
from tf1_train.errors import UserError

v1 = tf.compat.v1

PS = ("ps0.example:2222", "ps1.example:2222")
CHIEF = {"type": "chief", "index": 0}
WORKERS = ("w0.example:2222", "w1.example:2222", "w2.example:2222")


def _tf_config(task_type, index, chief="chief"):
    """TF_CONFIG with the first worker as ``chief`` (TFJob: ``master``), or
    with no chief entry when ``chief`` is None."""
    jobs = {"ps": list(PS), "worker": list(WORKERS[1:] if chief else WORKERS)}
    if chief:
        jobs[chief] = [WORKERS[0]]
    return json.dumps({"cluster": jobs, "task": {"type": task_type, "index": index}})


@pytest.mark.parametrize("chief", ["chief", "master"])
@pytest.mark.parametrize(
    "task_type, index, job, task_index",
    [("chief", 0, "worker", 0), ("worker", 0, "worker", 1), ("worker", 1, "worker", 2)]
    + [("ps", 1, "ps", 1)],
)
def test_tf_config_and_flags_give_the_same_cluster(task_type, index, job, task_index, chief):
    flags = ClusterConfig(ps_hosts=PS, worker_hosts=WORKERS, job_name=job, task_index=task_index)
    flags.validate()
    task_type = chief if task_type == "chief" else task_type
    from_env = spec.resolve(ClusterConfig(), _tf_config(task_type, index, chief))
    from_env.validate()
    assert from_env.source == "TF_CONFIG"
    assert (from_env.job_name, from_env.task_index) == (job, task_index)
    assert server.cluster_spec(from_env).as_dict() == server.cluster_spec(flags).as_dict()
    assert from_env.is_chief == (task_type == chief)


def test_tf_config_without_chief_makes_worker_0_the_chief():
    cfg = spec.resolve(ClusterConfig(), _tf_config("worker", 0, chief=None))
    assert cfg.worker_hosts == WORKERS and cfg.is_chief


def test_flags_win_over_tf_config_and_keep_sync_and_timeouts():
    flags = ClusterConfig(ps_hosts=PS[:1], worker_hosts=WORKERS[:1], job_name="worker")
    assert spec.resolve(flags, _tf_config("ps", 0)) is flags
    only_options = ClusterConfig(sync_replicas=True, operation_timeout_secs=7)
    resolved = spec.resolve(only_options, _tf_config("worker", 1))
    assert resolved.sync_replicas and resolved.operation_timeout_secs == 7
    assert spec.resolve(ClusterConfig(), None) == ClusterConfig()


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "missing the 'cluster' object"),
        ('{"task": {"type": "worker", "index": 0}}', "missing the 'cluster' object"),
        ('{"cluster": {"worker": ["a:1"]}}', "missing 'task'"),
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker"}}', "missing 'task'"),
        ('{"cluster": {"worker": "a:1"}, "task": {"type": "worker", "index": 0}}', "list of"),
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "boss", "index": 0}}', "'boss'"),
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 1}}', "range"),
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": "0"}}', "whole"),
        ('{"cluster": {"evaluator": ["a:1"]}, "task": {"type": "ps", "index": 0}}', "evaluator"),
        ('{"cluster": {"chief": ["a:1", "b:1"]}, "task": {"type": "chief", "index": 0}}', "one"),
        (json.dumps({"cluster": {"chief": ["a:1"], "master": ["b:1"]}, "task": CHIEF}), "one"),
    ],
)
def test_malformed_tf_config_is_one_clear_line(text, fragment):
    with pytest.raises(UserError) as e:
        spec.resolve(ClusterConfig(), text)
    message = str(e.value)
    assert message.startswith("TF_CONFIG: ") and fragment in message
    assert "\n" not in message and "expected {" in message


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"job_name": "worker", "task_index": 3}, "--task_index: got 3, but there are 3 worker"),
        ({"job_name": "ps", "task_index": 2}, "--task_index: got 2, but there are 2 ps"),
        ({"job_name": "worker", "task_index": -1}, "--task_index: got -1"),
        ({"job_name": "chief"}, "--job_name: got 'chief'; valid: ps, worker"),
        ({"job_name": "worker", "ps_hosts": ()}, "--ps_hosts: empty"),
        ({"job_name": "worker", "ps_hosts": ("nohost",)}, "--ps_hosts: 'nohost' is not host:port"),
        ({"job_name": "worker", "worker_hosts": ("h:0",)}, "--worker_hosts: 'h:0'"),
        (
            {"job_name": "worker", "ps_hosts": WORKERS[:1]},
            "--worker_hosts: w0.example:2222 listed more than once",
        ),
        ({"job_name": ""}, "--ps_hosts: given without --job_name"),
        ({"job_name": "worker", "operation_timeout_secs": 0}, "--operation_timeout_secs"),
    ],
)
def test_inconsistent_cluster_names_its_flag(fields, message):
    cfg = ClusterConfig(**{"ps_hosts": PS, "worker_hosts": WORKERS, **fields})
    with pytest.raises(UserError, match="^" + message.replace("(", r"\(")):
        cfg.validate()


def test_tf_config_errors_name_tf_config_keys():
    cfg = spec.resolve(ClusterConfig(), _tf_config("worker", 0))
    bad = ClusterConfig(**{**cfg.__dict__, "ps_hosts": ("x",)})
    with pytest.raises(UserError, match="^TF_CONFIG cluster.ps: 'x' is not host:port"):
        bad.validate()


def test_sync_replicas_and_replicated_need_the_right_setting():
    with pytest.raises(UserError, match="^--sync_replicas: needs a cluster"):
        ClusterConfig(sync_replicas=True).validate()
    one = ClusterConfig(ps_hosts=PS[:1], worker_hosts=WORKERS[:1], job_name="worker")
    from tests.conftest import small_config

    base = small_config("x")
    with pytest.raises(UserError, match="^--variable_update: a cluster"):
        Config(
            model="mlp",
            devices=base.devices.__class__(variable_update="replicated"),
            run=base.run,
            cluster=one,
        ).validate()


def test_busy_port_is_refused_with_the_flag_and_port():
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        cfg = ClusterConfig(
            ps_hosts=(f"127.0.0.1:{port}",), worker_hosts=("127.0.0.1:1",), job_name="ps"
        )
        with pytest.raises(UserError, match=f"^--ps_hosts: port {port} of ps0 .* in use"):
            spec.check_own_port(cfg)
    assert not spec.port_in_use(port)


def test_device_filters_and_timeout_in_the_server_config():
    worker = ClusterConfig(
        ps_hosts=PS, worker_hosts=WORKERS, job_name="worker", task_index=2, operation_timeout_secs=9
    )
    base = v1.ConfigProto(device_count={"CPU": 2}, intra_op_parallelism_threads=3)
    config = server.server_config(worker, base)
    assert list(config.device_filters) == ["/job:ps", "/job:worker/task:2"]
    assert config.operation_timeout_in_ms == 9000
    assert config.device_count["CPU"] == 2 and config.intra_op_parallelism_threads == 3
    ps = ClusterConfig(ps_hosts=PS, worker_hosts=WORKERS, job_name="ps", task_index=1)
    ps_config = server.server_config(ps)
    assert list(ps_config.device_filters) == ["/job:ps/task:1"]
    assert ps_config.device_count["GPU"] == 0


def _placed_bytes(ps_strategy):
    spec = tf.train.ClusterSpec({"ps": list(PS), "worker": list(WORKERS)})
    with tf.Graph().as_default():
        setter = v1.train.replica_device_setter(
            cluster=spec, worker_device="/job:worker/task:1", ps_strategy=ps_strategy
        )
        with v1.device(setter):
            shapes = [[1000, 100], [100], [10, 10], [100, 10], [10]]
            vs = [v1.get_variable(f"v{i}", s) for i, s in enumerate(shapes)]
            y = tf.reduce_sum(vs[1])
    loads = {}
    for v in vs:
        loads[v.device] = loads.get(v.device, 0) + devices.variable_bytes(v.op)
    return loads, y.device


def test_greedy_ps_strategy_balances_bytes_over_ps_tasks():
    # Round robin (replica_device_setter's default) puts the big kernel and
    # two more variables on ps0 (PORTING.md P10); greedy puts it there alone.
    round_robin, _ = _placed_bytes(None)
    strategy = devices.GreedyByBytes(["/job:ps/task:0", "/job:ps/task:1"])
    greedy, compute = _placed_bytes(strategy.index)
    assert round_robin["/job:ps/task:0"] == 400_000 + 400 + 40
    assert greedy == {"/job:ps/task:0": 400_000, "/job:ps/task:1": 400 + 400 + 4000 + 40}
    assert strategy.loads == [400_000, 4840]
    assert compute == "/job:worker/task:1"


def test_variable_bytes_of_an_op_without_shape_is_zero():
    with tf.Graph().as_default():
        table = tf.raw_ops.MutableHashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
    assert devices.variable_bytes(table.op) == 0


def _worker_graph(tmp_path, task_index, sync_replicas, num_ps=2, towers=1):
    from tests.conftest import small_config
    from tf1_train import graph, train

    cl = ClusterConfig(
        ps_hosts=PS[:num_ps],
        worker_hosts=WORKERS[:2],
        job_name="worker",
        task_index=task_index,
        sync_replicas=sync_replicas,
    )
    cfg = dataclasses.replace(small_config(tmp_path, towers=towers), cluster=cl)
    plan, _, g = train.build(cfg, 0, graph.Worker(task_index, 2, sync_replicas))
    return plan, g


@pytest.mark.parametrize("sync_replicas", [False, True])
def test_worker_graph_puts_variables_on_ps_and_compute_on_its_task(tmp_path, sync_replicas):
    plan, g = _worker_graph(tmp_path, 1, sync_replicas, towers=2)
    assert plan.tower_devices == (
        "/job:worker/task:1/device:CPU:0",
        "/job:worker/task:1/device:CPU:1",
    )
    ops = g.graph.get_operations()
    for var in g.model_variables.values():
        assert var.device in ("/job:ps/task:0", "/job:ps/task:1"), var
    assert {v.device for v in g.model_variables.values()} == {"/job:ps/task:0", "/job:ps/task:1"}
    matmuls = [op for op in ops if op.type == "MatMul" and op.name.startswith("tower_")]
    for op in matmuls:
        tower = int(op.name.split("/")[0].split("_")[1])
        assert op.device == plan.tower_devices[tower], op.name
    # Ops without a device of their own default to this worker's task; the
    # input pipeline runs on its CPU.
    iterator = [op for op in ops if op.type == "IteratorV2" and op.name.startswith("input")]
    assert iterator and iterator[0].device == "/job:worker/task:1/device:CPU:0"
    local_steps = [op for op in ops if op.name == "sync_rep_local_step"]
    if sync_replicas:
        # Each worker's own copy: on the parameter server all workers would
        # share one local step and the staleness check would break.
        assert local_steps[0].device == "/job:worker/task:1"
        assert g.sync is not None and g.step_after is not None
    else:
        assert not local_steps and g.sync is None


def test_greedy_strategy_spreads_the_mlp_over_two_ps_tasks(tmp_path):
    _, g = _worker_graph(tmp_path, 0, False, num_ps=2)
    per_ps = {}
    for var in g.model_variables.values():
        per_ps[var.device] = per_ps.get(var.device, 0) + devices.variable_bytes(var.op)
    # In creation order, each to the lighter ps: fc1/weights (64 KiB) -> ps0,
    # fc1/biases -> ps1, fc2/weights (128 KiB) -> ps1, the rest -> ps0.
    # Round robin would put both big kernels on ps0.
    fc1, fc2, logits = 64 * 256 * 4, 256 * 128 * 4, 128 * 10 * 4
    assert per_ps == {
        "/job:ps/task:0": fc1 + 128 * 4 + logits + 10 * 4,
        "/job:ps/task:1": 256 * 4 + fc2,
    }


def test_workers_read_disjoint_shards_of_the_training_set():
    from tf1_train import data
    from tf1_train.config import DataConfig
    from tf1_train.data import pipeline

    source = data.load_source(DataConfig())
    seen = []
    for shard in range(2):
        ds = pipeline.train_dataset(source, 1, seed=3, num_shards=2, shard_index=shard)
        n = len(range(shard, source.num_train, 2))
        images = [x.numpy() for x, _ in ds.unbatch().take(n)]
        seen.append({img.tobytes() for img in images})
    assert not seen[0] & seen[1]
    assert len(seen[0]) + len(seen[1]) == len({img.tobytes() for img in source.train_images})


def test_cadences_fire_when_the_shared_step_crosses_a_multiple():
    from tf1_train.loop import crossed

    assert crossed(99, 100, 50) and crossed(98, 101, 50) and not crossed(100, 101, 50)
    assert [s for s in range(1, 11) if crossed(s - 1, s, 5)] == [5, 10]


def test_cluster_devices_keep_their_job_and_task():
    assert (
        devices.canonical("/job:ps/replica:0/task:1/device:CPU:0") == "/job:ps/task:1/device:CPU:0"
    )
    assert devices.canonical("/job:localhost/replica:0/task:0/device:CPU:1") == "/device:CPU:1"
    plan = devices.plan_devices(DeviceConfig(num_towers=2, device="cpu"), gpus_found=0)
    worker = devices.for_cluster(plan, PS, WORKERS, 2)
    assert worker.tower_devices == (
        "/job:worker/task:2/device:CPU:0",
        "/job:worker/task:2/device:CPU:1",
    )
    assert worker.param_devices == ("/job:ps/task:0/device:CPU:0", "/job:ps/task:1/device:CPU:0")
    assert worker.cluster == {"ps": list(PS), "worker": list(WORKERS)}
