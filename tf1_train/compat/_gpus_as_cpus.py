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
(``ConfigProto.device_count``), the program's own config otherwise kept.
What the numbers are on a GPU (its kernels, cuDNN's choices, float16
speed) is not what this checks; ``tf.config.list_physical_devices('GPU')``
still says there are none.
"""

from __future__ import annotations

from typing import Optional

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
    import tensorflow as tf

    merged = tf.compat.v1.ConfigProto()
    if config is not None:
        merged.CopyFrom(config)
    merged.device_count["CPU"] = max(merged.device_count.get("CPU", 1), n)
    return merged


def install(n: int) -> str:
    """GPUs as CPUs for the rest of the process; the line that says so."""
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
    return (
        f"tf1_train.compat: --gpus_as_cpus={n}: /gpu:i runs on /cpu:i, and every session has "
        f"{n} CPU devices (the towers' logic is checked, not GPU numbers or speed)"
    )


def uninstall() -> None:
    """Puts back what install() replaced (tests run with and without it)."""
    for owner, name, original in _state.pop("saved", []):
        setattr(owner, name, original)


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
