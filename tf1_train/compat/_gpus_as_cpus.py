"""``python -m tf1_train.compat --gpus_as_cpus=N``: a multi-GPU TF1 program's
towers on N virtual CPU devices, so its tower logic (the device functions,
variable sharing under ``reuse``, gradient averaging, what lands where) runs
and can be checked on a machine without GPUs, as it could not on TF1 either:
``tf.device('/gpu:1')`` there fails with "Cannot assign a device for
operation".

Two changes, both for the whole process and both announced in one line:
every device a graph is asked for (``tf.device('/gpu:i')``, a device
function's answer, ``replica_device_setter``'s worker device) has its GPU
replaced by the CPU of the same index, and every Session (``tf.Session``,
``InteractiveSession``, and the ones ``MonitoredTrainingSession`` and
``Supervisor`` open) gets at least N CPU devices
(``ConfigProto.device_count``), and enough inter-op threads that the
towers' waiting ops cannot hold them all (``_with_cpus``), the program's own
config otherwise kept.
NCCL's collectives between such towers (``nccl_ops.all_sum``, the
replicated trainers' all-reduce) are built from ordinary ops on the CPUs
(_nccl_on_cpus.py). What the numbers are on a GPU (its kernels, cuDNN's
choices, float16 speed) is not what this checks.

A program that counts its GPUs before building its towers (``device_lib``'s
``list_local_devices``, ``tf.test.is_gpu_available``/``gpu_device_name``,
``tf.config.list_physical_devices('GPU')`` and its logical and memory-growth
neighbours) is answered N GPUs when it asks from its own files (the
script's directory, or the current one for ``-m``), so it builds N towers.
TensorFlow, Keras and other installed packages asking the same questions
still hear the truth (no GPU), so nothing of theirs picks a GPU-only kernel.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Callable, Optional, Sequence

from tf1_train.compat import _nccl_on_cpus

_state: dict = {}


def gpu_to_cpu(spec):
    """The device ``spec`` names, with a GPU replaced by the CPU of its index;
    a device function's answers likewise; anything else unchanged."""
    import tensorflow as tf

    if callable(spec) and not isinstance(spec, (str, tf.DeviceSpec)):
        return lambda op: gpu_to_cpu(spec(op))
    if not spec:
        return spec
    parsed = spec if isinstance(spec, tf.DeviceSpec) else tf.DeviceSpec.from_string(str(spec))
    if (parsed.device_type or "").upper() != "GPU":
        return spec
    return parsed.replace(device_type="CPU").to_string()


def _with_cpus(config, n: int):
    """The program's config with N CPU devices and, where it leaves the
    count to TensorFlow, ``cores + 2N`` inter-op threads: each blocking op of
    a tower on a CPU (a ``StagingArea`` get, a queue's dequeue) holds one of
    the session's inter-op threads while it waits, and with as many threads as
    cores (TensorFlow's default) N towers can hold them all. tensorpack's
    replicated trainer on two towers hung so at a random step in 4 of 7 runs
    on 2 cores, and in none of 11 with 6 or 8 threads."""
    import tensorflow as tf

    merged = tf.compat.v1.ConfigProto()
    if config is not None:
        merged.CopyFrom(config)
    merged.device_count["CPU"] = max(merged.device_count.get("CPU", 1), n)
    if not merged.inter_op_parallelism_threads and not os.environ.get("TF_NUM_INTEROP_THREADS"):
        merged.inter_op_parallelism_threads = (os.cpu_count() or 1) + 2 * n
    return merged


def install(n: int, roots: Sequence[str] = ()) -> str:
    """GPUs as CPUs for the rest of the process, the GPU queries of the files
    under ``roots`` answered N; the line that says so."""
    from tensorflow.python.client import session
    from tensorflow.python.framework import ops

    uninstall()
    graph_device = ops.Graph.device
    _state["saved"] = [(ops.Graph, "device", graph_device)]

    def device(self, device_name_or_function):
        return graph_device(self, gpu_to_cpu(device_name_or_function))

    ops.Graph.device = device
    for cls in (session.Session, session.InteractiveSession):
        _state["saved"].append((cls, "__init__", cls.__init__))
        _wrap_session(cls, n)
    _nccl_on_cpus.install(_state["saved"])
    if roots:
        from tf1_train.compat._v1_imports import _owner

        _answer_gpu_queries(n, _owner(roots))
    return (
        f"tf1_train.compat: --gpus_as_cpus={n}: /gpu:i runs on /cpu:i, every session has "
        f"{n} CPU devices, NCCL's all-reduce sums on them, and the program's own GPU queries "
        f"count {n} GPUs (the towers' logic is checked, not GPU numbers or speed)"
    )


def uninstall() -> None:
    """Puts back what install() replaced (tests run with and without it)."""
    for owner, name, original in _state.pop("saved", []):
        setattr(owner, name, original)


def _answer_gpu_queries(n: int, owned: Callable[[dict], bool]) -> None:
    """Wraps TensorFlow's GPU queries wherever its modules hold them: the
    program's own calls see N GPUs, everyone else's the truth."""
    from tensorflow.python.client import device_lib
    from tensorflow.python.framework import config, test_util

    answers = _gpu_answers(n)
    wrappers = {}
    for module, name in ((config, "list_physical_devices"), (config, "list_logical_devices"),
                         (config, "set_memory_growth"), (config, "get_memory_growth"),
                         (device_lib, "list_local_devices"), (test_util, "is_gpu_available"),
                         (test_util, "gpu_device_name")):  # fmt: skip
        wrappers[id(getattr(module, name))] = _asked(getattr(module, name), answers[name], owned)
    for module in [m for k, m in list(sys.modules.items()) if k.startswith("tensorflow") and m]:
        for name, value in list(vars(module).items()):
            if id(value) in wrappers:
                _state["saved"].append((module, name, value))
                setattr(module, name, wrappers[id(value)])


def _asked(original: Callable, answer: Callable, owned: Callable[[dict], bool]) -> Callable:
    @functools.wraps(original)
    def query(*args, **kwargs):
        if owned(sys._getframe(1).f_globals):  # the caller: the program, or a library
            return answer(original, *args, **kwargs)
        return original(*args, **kwargs)

    return query


def _gpu_answers(n: int) -> dict:
    """What each query answers the program: its real answer and N GPUs."""
    from tensorflow.core.framework import device_attributes_pb2
    from tensorflow.python.eager.context import LogicalDevice, PhysicalDevice

    physical = [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(n)]
    logical = [LogicalDevice(f"/device:GPU:{i}", "GPU") for i in range(n)]
    growth = {}

    def devices(fakes):
        def answer(original, device_type=None):
            asks_gpus = device_type is None or str(device_type).upper() == "GPU"
            return original(device_type) + (fakes if asks_gpus else [])

        return answer

    def local_devices(original, session_config=None):
        return original(session_config) + [
            device_attributes_pb2.DeviceAttributes(
                name=f"/device:GPU:{i}", device_type="GPU",
                physical_device_desc=f"tf1_train.compat --gpus_as_cpus: runs on /device:CPU:{i}",
            ) for i in range(n)
        ]  # fmt: skip

    def set_growth(original, device, enable):
        if device not in physical:
            return original(device, enable)
        growth[device] = bool(enable)

    def get_growth(original, device):
        return growth.get(device, False) if device in physical else original(device)

    return {
        "list_physical_devices": devices(physical),
        "list_logical_devices": devices(logical),
        "set_memory_growth": set_growth,
        "get_memory_growth": get_growth,
        "list_local_devices": local_devices,
        "is_gpu_available": lambda original, *args, **kwargs: True,
        "gpu_device_name": lambda original: "/device:GPU:0",
    }


def _wrap_session(cls, n: int) -> None:
    init = cls.__init__

    def __init__(self, target="", graph=None, config=None, **kw):
        init(self, target, graph, _with_cpus(config, n), **kw)

    cls.__init__ = __init__


def parse(value: str) -> Optional[str]:
    """Why ``--gpus_as_cpus=value`` cannot run, or None."""
    if not value:
        return "--gpus_as_cpus needs its value: --gpus_as_cpus=N, N the number of GPUs (1-64)"
    if not value.isdigit() or not 1 <= int(value) <= 64:
        return f"--gpus_as_cpus={value}: the number of GPUs to run on CPUs, an integer 1-64"
    return None
