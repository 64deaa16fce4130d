"""Device planning, ConfigProto, and variable placement strategies.

Planning is pure, so GPU device strings are checked here without a GPU.
"""

import pytest
import tensorflow as tf

from tf1_train import devices
from tf1_train.config import DeviceConfig
from tf1_train.errors import UserError

v1 = tf.compat.v1


@pytest.mark.parametrize("n", [1, 2, 4])
def test_gpus_become_towers_when_present(n):
    plan = devices.plan_devices(DeviceConfig(num_towers=n), gpus_found=4)
    assert plan.tower_devices == tuple(f"/device:GPU:{i}" for i in range(n))
    assert plan.param_devices == ("/device:CPU:0",)
    assert plan.num_cpu_devices == 1 and plan.warning is None


def test_gpu_parameter_device_spreads_over_the_tower_gpus():
    cfg = DeviceConfig(num_towers=2, local_parameter_device="gpu")
    plan = devices.plan_devices(cfg, gpus_found=2)
    assert plan.param_devices == ("/device:GPU:0", "/device:GPU:1")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_no_gpu_falls_back_to_virtual_cpus_with_one_warning(n):
    plan = devices.plan_devices(DeviceConfig(num_towers=n), gpus_found=0)
    assert plan.tower_devices == tuple(f"/device:CPU:{i}" for i in range(n))
    assert plan.num_cpu_devices == n
    assert "no GPU found" in plan.warning and "\n" not in plan.warning


def test_device_cpu_is_silent_and_ignores_gpus():
    plan = devices.plan_devices(DeviceConfig(num_towers=2, device="cpu"), gpus_found=8)
    assert plan.tower_devices == ("/device:CPU:0", "/device:CPU:1")
    assert plan.warning is None
    assert devices.session_config(DeviceConfig(), plan).device_count["GPU"] == 0


@pytest.mark.parametrize("found", [0, 1])
def test_device_gpu_with_too_few_gpus_says_how_many(found):
    with pytest.raises(UserError, match=f"--device=gpu.*{found} were found"):
        devices.plan_devices(DeviceConfig(num_towers=2, device="gpu"), gpus_found=found)


def test_auto_with_some_but_too_few_gpus_is_an_error():
    with pytest.raises(UserError, match="--num_gpus=4: only 2 GPU"):
        devices.plan_devices(DeviceConfig(num_towers=4), gpus_found=2)


def test_session_config_carries_every_option():
    cfg = DeviceConfig(
        num_towers=2,
        log_device_placement=True,
        allow_soft_placement=False,
        gpu_memory_fraction=0.4,
        xla=True,
        inter_op_threads=3,
        intra_op_threads=5,
    )
    plan = devices.plan_devices(cfg, gpus_found=2)
    c = devices.session_config(cfg, plan)
    assert c.log_device_placement and not c.allow_soft_placement
    assert c.gpu_options.per_process_gpu_memory_fraction == pytest.approx(0.4)
    assert not c.gpu_options.allow_growth
    assert c.graph_options.optimizer_options.global_jit_level == v1.OptimizerOptions.ON_1
    assert (c.inter_op_parallelism_threads, c.intra_op_parallelism_threads) == (3, 5)
    assert c.device_count["GPU"] == 2 and c.device_count["CPU"] == 1


def test_cuda_device_order_defaults_to_pci_bus(monkeypatch):
    monkeypatch.delenv("CUDA_DEVICE_ORDER", raising=False)
    devices.set_cuda_device_order()
    import os

    assert os.environ["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    monkeypatch.setenv("CUDA_DEVICE_ORDER", "FASTEST_FIRST")
    devices.set_cuda_device_order()
    assert os.environ["CUDA_DEVICE_ORDER"] == "FASTEST_FIRST"


def test_parse_bus_id():
    desc = "device: 0, name: Tesla V100, pci bus id: 0000:3b:00.0, compute capability: 7.0"
    assert devices.parse_bus_id(desc) == "0000:3b:00.0"
    assert devices.parse_bus_id("device: 0, name: x") is None


def test_gpu_bus_lines_name_each_gpus_bus():
    from types import SimpleNamespace as D

    fake = [
        D(device_type="CPU", name="/device:CPU:0", physical_device_desc=""),
        D(device_type="GPU", name="/device:GPU:0",
          physical_device_desc="device: 0, name: A100, pci bus id: 0000:3b:00.0"),
        D(device_type="GPU", name="/job:localhost/replica:0/task:0/device:GPU:1",
          physical_device_desc="device: 1, name: A100"),
    ]  # fmt: skip
    seen = {}

    def list_devices(session_config):
        seen["config"] = session_config
        return fake

    config = v1.ConfigProto()
    lines = devices.gpu_bus_lines(config, list_devices)
    assert lines == [
        "/device:GPU:0 -> pci bus id 0000:3b:00.0",
        "/device:GPU:1 -> pci bus id unknown",
    ]
    assert seen["config"] is config


def _make_vars(shapes):
    return [v1.get_variable(f"v{i}", s) for i, s in enumerate(shapes)]


def test_greedy_by_bytes_balances_bytes_not_counts():
    shapes = [[1000, 100], [10], [10], [10], [500, 100], [400, 100]]
    strategy = devices.GreedyByBytes(["/device:GPU:0", "/device:GPU:1"])
    with tf.Graph().as_default():
        with v1.device(lambda op: strategy(op) if op.type == "VarHandleOp" else ""):
            vs = _make_vars(shapes)
    placed = [v.device for v in vs]
    assert placed[0] != placed[4] and placed[4] == placed[5]
    assert strategy.loads == [400_000, 360_120]


def test_tower_device_fn_matches_resource_variables():
    # Resource variables are VarHandleOp: a setter matching only VariableV2
    # would leave them on the tower (PORTING.md P17).
    strategy = devices.GreedyByBytes(["/device:GPU:0", "/device:GPU:1"])
    fn = devices.tower_device_fn("/device:GPU:1", strategy.devices, strategy)
    with tf.Graph().as_default():
        with v1.device(fn):
            a, b = _make_vars([[64, 64], [64, 64]])
            y = tf.matmul(a, b)
    assert a.op.type == "VarHandleOp"
    assert {a.device, b.device} == {"/device:GPU:0", "/device:GPU:1"}
    assert y.device == "/device:GPU:1"


def test_single_parameter_device_uses_replica_device_setter():
    fn = devices.tower_device_fn("/device:GPU:1", ["/device:CPU:0"], None)
    with tf.Graph().as_default():
        with v1.device(fn):
            (a,) = _make_vars([[3, 3]])
            y = a * 2.0
    assert tf.DeviceSpec.from_string(a.device).device_type == "CPU"
    assert tf.DeviceSpec.from_string(y.device).device_type == "GPU"


def test_canonical_device_names():
    assert devices.canonical("/job:localhost/replica:0/task:0/device:CPU:1") == "/device:CPU:1"
    assert devices.canonical("/cpu:0") == "/device:CPU:0"
