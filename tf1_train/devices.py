"""Which devices the towers and the variables use, and the session's ConfigProto.

Device decisions are pure functions of (flags, GPUs found) so tests can check
GPU device strings on a machine without a GPU. The only TensorFlow calls that
touch hardware are ``count_gpus`` and ``gpu_descriptions``.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf

from tf1_train.config import DeviceConfig
from tf1_train.errors import UserError

v1 = tf.compat.v1

# Ops that own variable storage. Resource variables are VarHandleOp; setters
# that match only Variable/VariableV2 (tf_cnn_benchmarks, tensorpack) silently
# leave them on the worker device (PORTING.md P17).
VARIABLE_OPS = frozenset({"Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp"})


class DevicePlan(NamedTuple):
    """Where everything runs.

    Attributes:
      tower_devices: one device per tower, e.g. ('/device:GPU:0', ...).
      param_devices: where variables live: ('/device:CPU:0',), or the tower
        devices when --local_parameter_device=gpu (greedy by bytes).
      num_cpu_devices: CPU devices the session must create (virtual towers).
      gpus_found: GPUs TensorFlow saw.
      warning: one line for the user, or None.
      cluster: between-graph training: {'ps': [...], 'worker': [...]} for
        replica_device_setter(cluster=...); devices then name their job and
        task (see ``for_cluster``). None in a single process.
    """

    tower_devices: Tuple[str, ...]
    param_devices: Tuple[str, ...]
    num_cpu_devices: int
    gpus_found: int
    warning: Optional[str]
    cluster: Optional[Dict[str, List[str]]] = None


def plan_devices(cfg: DeviceConfig, gpus_found: int) -> DevicePlan:
    """Chooses tower and parameter devices from the flags and the GPU count."""
    n = cfg.num_towers
    warning = None
    if cfg.device == "gpu" and gpus_found < n:
        raise UserError(
            f"--device=gpu: --num_gpus={n} needs {n} GPU(s) but {gpus_found} "
            "were found (check CUDA_VISIBLE_DEVICES); use --device=auto or cpu"
        )
    use_gpu = cfg.device == "gpu" or (cfg.device == "auto" and gpus_found > 0)
    if use_gpu and gpus_found < n:
        raise UserError(
            f"--num_gpus={n}: only {gpus_found} GPU(s) found; lower --num_gpus "
            "or pass --device=cpu to run the towers on virtual CPU devices"
        )
    if use_gpu:
        towers = tuple(f"/device:GPU:{i}" for i in range(n))
        num_cpus = 1
    else:
        towers = tuple(f"/device:CPU:{i}" for i in range(n))
        num_cpus = n
        if cfg.device == "auto":
            warning = (
                f"no GPU found: running {n} tower(s) on {n} virtual CPU "
                "device(s) sharing this machine's cores"
            )
    if cfg.local_parameter_device == "gpu":
        params = towers
    else:
        params = ("/device:CPU:0",)
    return DevicePlan(towers, params, num_cpus, gpus_found, warning)


def for_cluster(
    plan: DevicePlan, ps_hosts: Sequence[str], worker_hosts: Sequence[str], task_index: int
) -> DevicePlan:
    """A worker's plan: its towers on its own task, variables on the ps tasks.

    '/device:GPU:1' becomes '/job:worker/task:<i>/device:GPU:1'; the
    parameter devices are every ps task's CPU, filled greedy by bytes.
    """
    worker = f"/job:worker/task:{task_index}"
    return plan._replace(
        tower_devices=tuple(worker + d for d in plan.tower_devices),
        param_devices=tuple(f"/job:ps/task:{i}/device:CPU:0" for i in range(len(ps_hosts))),
        cluster={"ps": list(ps_hosts), "worker": list(worker_hosts)},
    )


def uses_gpu(plan: DevicePlan) -> bool:
    return "GPU" in plan.tower_devices[0]


def count_gpus() -> int:
    """GPUs visible to TensorFlow (CUDA_VISIBLE_DEVICES already applied)."""
    return len(tf.config.list_physical_devices("GPU"))


def set_cuda_device_order() -> None:
    """Makes GPU:i follow nvidia-smi's PCI bus order (PORTING.md P12).

    CUDA's default order is fastest-first, so GPU:0 in TensorFlow may be a
    different card than GPU 0 in nvidia-smi. Must run before TF touches CUDA;
    a value the user set is kept.
    """
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")


def parse_bus_id(physical_device_desc: str) -> Optional[str]:
    """'device: 0, name: X, pci bus id: 0000:3b:00.0, ...' -> '0000:3b:00.0'."""
    m = re.search(r"pci bus id: ([0-9a-fA-F:.]+)", physical_device_desc)
    return m.group(1) if m else None


def gpu_bus_lines(config: v1.ConfigProto, list_devices=None) -> List[str]:
    """'GPU:i -> pci bus id ...' for each GPU the session will use (PORTING.md P12).

    With CUDA_VISIBLE_DEVICES=2,3 TensorFlow calls those cards GPU:0 and
    GPU:1; the bus id says which physical card each tower really uses.
    ``list_devices`` is injectable for tests; it is given ``config`` so the
    GPU options of the run are the first and only ones applied (PORTING.md P11).
    """
    if list_devices is None:
        from tensorflow.python.client import device_lib

        list_devices = device_lib.list_local_devices
    lines = []
    for dev in list_devices(session_config=config):
        if dev.device_type == "GPU":
            bus = parse_bus_id(dev.physical_device_desc) or "unknown"
            lines.append(f"{canonical(dev.name)} -> pci bus id {bus}")
    return lines


def session_config(cfg: DeviceConfig, plan: DevicePlan) -> v1.ConfigProto:
    """The ConfigProto of the article's options, built once per process.

    GPU options of the first session in a process win; later ones are
    silently ignored (PORTING.md P11), so every session of a run uses this one.
    """
    num_gpus = plan.gpus_found if uses_gpu(plan) else 0
    config = v1.ConfigProto(
        device_count={"CPU": plan.num_cpu_devices, "GPU": num_gpus},
        log_device_placement=cfg.log_device_placement,
        allow_soft_placement=cfg.allow_soft_placement,
        inter_op_parallelism_threads=cfg.inter_op_threads,
        intra_op_parallelism_threads=cfg.intra_op_threads,
    )
    config.gpu_options.allow_growth = cfg.allow_growth
    if cfg.gpu_memory_fraction > 0:
        config.gpu_options.per_process_gpu_memory_fraction = cfg.gpu_memory_fraction
    if cfg.xla:
        config.graph_options.optimizer_options.global_jit_level = v1.OptimizerOptions.ON_1
    return config


def variable_bytes(op: tf.Operation) -> int:
    """Bytes of the variable an op creates (0 if the shape is unknown).

    Ops without shape or dtype attributes (hash tables, which
    replica_device_setter also sends to parameter servers) count as 0.
    """
    try:
        shape = tf.TensorShape(op.get_attr("shape"))
        dtype = tf.as_dtype(op.get_attr("dtype"))
    except ValueError:
        return 0
    if not shape.is_fully_defined():
        return 0
    return int(np.prod(shape.as_list(), dtype=np.int64)) * dtype.size


class GreedyByBytes:
    """Puts each new variable on the device holding the fewest bytes so far.

    The replacement for the contrib module's GreedyLoadBalancingStrategy (gone with
    contrib). Round-robin, replica_device_setter's default, balances counts,
    not bytes: one big fc layer can dwarf everything else (PORTING.md P10).
    ``loads`` is public so the placement report and tests can read it.

    Calling it returns a device string (for our own device functions);
    ``index`` returns the position instead, which is what
    ``replica_device_setter(cluster=..., ps_strategy=...)`` expects.
    """

    def __init__(self, devices: Sequence[str]):
        self.devices = tuple(devices)
        self.loads = [0] * len(self.devices)

    def index(self, op: tf.Operation) -> int:
        i = int(np.argmin(self.loads))
        self.loads[i] += variable_bytes(op)
        return i

    def __call__(self, op: tf.Operation) -> str:
        return self.devices[self.index(op)]


def tower_device_fn(
    tower_device: str,
    param_devices: Sequence[str],
    strategy: Optional[GreedyByBytes],
    cluster: Optional[Dict[str, List[str]]] = None,
) -> Callable:
    """Device function for ops built inside one tower.

    Variables go to the parameter device(s), everything else to the tower.
    In a cluster this is ``replica_device_setter(cluster=..., worker_device=
    tower, ps_strategy=greedy.index)``, the classic between-graph API. With
    one local parameter device it is ``replica_device_setter(ps_tasks=1,
    ps_device=..., worker_device=...)`` (it returns None with ps_tasks=0 and
    no cluster, PORTING.md P16). Its ps_strategy is only consulted when
    ps_device names a job, so spreading over several local devices needs
    our own function, which matches VarHandleOp (PORTING.md P17).
    """
    if cluster is not None:
        assert strategy is not None, "a cluster needs a ps strategy"
        return v1.train.replica_device_setter(
            cluster=cluster, worker_device=tower_device, ps_strategy=strategy.index
        )
    if len(param_devices) == 1:
        return v1.train.replica_device_setter(
            ps_tasks=1, ps_device=param_devices[0], worker_device=tower_device
        )
    assert strategy is not None, "several parameter devices need a strategy"

    def device_fn(op: tf.Operation) -> str:
        if op.device:
            return op.device
        if op.type in VARIABLE_OPS:
            return strategy(op)
        return tower_device

    return device_fn


def canonical(device: str) -> str:
    """'/job:localhost/replica:0/task:0/device:CPU:1' -> '/device:CPU:1'.

    A cluster task keeps its job and task, so a worker's CPU:0 and a
    parameter server's stay apart: '/job:ps/task:0/device:CPU:0'.
    """
    spec = tf.DeviceSpec.from_string(device)
    if spec.device_type is None:
        return device
    local = f"/device:{spec.device_type}:{spec.device_index or 0}"
    if spec.job and spec.job != "localhost":
        return f"/job:{spec.job}/task:{spec.task or 0}{local}"
    return local
