"""``tf.contrib.memory_stats`` after install(): ``BytesInUse``, ``MaxBytesInUse``
and ``BytesLimit``, the GPU allocator's counters as graph ops.

GPU trainers logged their peak memory with them (NVIDIA's StyleGAN prints
``MaxBytesInUse`` of ``/gpu:0`` every tick), and the module went with
``tf.contrib``. TensorFlow 2.21 keeps the first two counters, for the whole
process, in ``tf.config.experimental.get_memory_info(device)`` (``current``,
``peak``). Each op is that call at run time on the host of the device the
op was built for (TF 1.15's kernels read the same allocator), and its value
an int64 scalar as before.

What cannot be answered says so in one line: TensorFlow 2.21 reports no
allocator limit (``BytesLimit`` raises when built), and it keeps no
statistics for a CPU (TF 1.15 had no CPU kernel either): an op built for a
CPU, as ``python -m tf1_train.compat --gpus_as_cpus=N`` builds the program's
``/gpu:i`` ones, answers 0, which a line on stderr says once.
"""

import sys

_COUNTER = {"BytesInUse": "current", "MaxBytesInUse": "peak"}
KEPT = ("BytesInUse", "BytesLimit", "MaxBytesInUse")
_said = set()


def resolve(name: str):
    """The op-building function TF 1.15's module had under ``name``."""
    if name == "BytesLimit":
        return _bytes_limit
    return lambda: _counter(name)


def _bytes_limit():
    raise NotImplementedError(
        "tf.contrib.memory_stats.BytesLimit: TensorFlow 2.21 reports no allocator limit "
        "(tf.config.experimental.get_memory_info has 'current' and 'peak' only); "
        "BytesInUse and MaxBytesInUse are kept"
    )


def _counter(name: str):
    """An int64 scalar op that reads ``name``'s counter of the device the
    current scope names (``/gpu:0`` when it names none, as TF 1.15 placed it)."""
    import tensorflow as tf

    device = _device_of_scope()
    if device.device_type == "CPU" and name not in _said:
        _said.add(name)
        print(
            f"tf1_train.compat: tf.contrib.memory_stats.{name} on {device.to_string()} "
            "answers 0: TensorFlow keeps no allocator statistics for a CPU",
            file=sys.stderr,
        )
    key, wanted = _COUNTER[name], f"{device.device_type}:{device.device_index or 0}"

    def read():
        if device.device_type == "CPU":
            return 0
        return tf.config.experimental.get_memory_info(wanted)[key]

    with tf.device(device.replace(device_type="CPU", device_index=0).to_string()):
        value = tf.compat.v1.py_func(read, [], tf.int64, stateful=True, name=name)
    value.set_shape([])
    return value


def _device_of_scope():
    """The device the enclosing ``tf.device`` scopes give a new op."""
    import tensorflow as tf

    probe = tf.compat.v1.no_op(name="memory_stats_device")
    spec = tf.DeviceSpec.from_string(probe.device or "/device:GPU:0")
    if not spec.device_type:
        spec = spec.replace(device_type="GPU", device_index=0)
    return spec
