"""Devices for the TF2 path: the same plan as TF1, as a MirroredStrategy.

Virtual CPU devices are logical devices here
(``tf.config.set_logical_device_configuration``), the TF2 counterpart of
``ConfigProto(device_count={'CPU': N})``; they must be configured before
TensorFlow initialises its runtime, so this runs first in a TF2 process.
"""

from __future__ import annotations

from typing import Dict, Tuple

import tensorflow as tf

from tf1_train import devices
from tf1_train.config import DeviceConfig
from tf1_train.errors import UserError


def make_strategy(
    cfg: DeviceConfig, gpus_found: int | None = None
) -> Tuple[tf.distribute.MirroredStrategy, devices.DevicePlan]:
    """MirroredStrategy over the towers' devices (GPUs, else logical CPUs)."""
    if gpus_found is None:
        gpus_found = len(tf.config.list_physical_devices("GPU"))
    plan = devices.plan_devices(cfg, gpus_found)
    if not devices.uses_gpu(plan):
        ensure_logical_cpus(plan.num_cpu_devices)
    if plan.tower_devices not in _STRATEGIES:
        _STRATEGIES[plan.tower_devices] = tf.distribute.MirroredStrategy(list(plan.tower_devices))
    return _STRATEGIES[plan.tower_devices], plan


# One strategy per device set and process: two MirroredStrategy objects number
# their collective ops independently, and their all-reduces then collide
# ("Shape mismatch in the collective instance").
_STRATEGIES: Dict[Tuple[str, ...], tf.distribute.MirroredStrategy] = {}


def ensure_logical_cpus(n: int) -> None:
    """Splits the CPU into ``n`` logical devices (once per process)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    have = tf.config.get_logical_device_configuration(cpu)
    if have is not None and len(have) >= n:
        return
    try:
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(n)]
        )
    except RuntimeError:
        raise UserError(
            f"--num_gpus={n}: TensorFlow was initialised with fewer CPU devices; "
            "run the TF2 path in a fresh process"
        ) from None
