"""The placement report: where the runtime actually put ops and variables.

Built from the partition graphs of a real step (``RunOptions(
output_partition_graphs=True)``): one GraphDef per device, after soft
placement, colocation and grappler's rewrites. ``op.device`` strings only say
what was requested, and ``log_device_placement`` prints from C++ to fd 1/2
where Python cannot read it (PORTING.md P13).

A tower's compute is identified by its MatMul/Conv2D ops (forward and
gradient), whatever grappler renamed them to (``_FusedMatMul``,
``_MklNativeFusedConv2D``, ...): these are the ops that should run on the
tower's device; the rest of a tower is cheap glue.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence

import numpy as np
import tensorflow as tf

from tf1_train import devices

VARIABLE_OPS = devices.VARIABLE_OPS
_TOWER = re.compile(r"(?:^|/)tower_(\d+)/")
_COMPUTE = re.compile(r"MatMul|Conv2D")


class VariablePlacement(NamedTuple):
    device: str
    bytes: int
    model: bool  # a model variable (or a replica of one), not a slot or step


class DeviceLoad(NamedTuple):
    """What one device ran and held during the step."""

    ops: int
    model_variables: int
    model_bytes: int
    other_variables: int  # optimizer slots, global step
    other_bytes: int


class PlacementReport(NamedTuple):
    devices: Dict[str, DeviceLoad]
    variables: Dict[str, VariablePlacement]  # variable op name -> placement
    tower_compute: List[Dict[str, int]]  # per tower: device -> MatMul/Conv2D ops
    unexpected: List[str]

    def variable_devices(self) -> Dict[str, int]:
        """Model variables per device (run_summary.json's key)."""
        return {d: load.model_variables for d, load in self.devices.items() if load.model_variables}

    def to_json(self) -> Dict:
        return {
            "devices": {d: load._asdict() for d, load in self.devices.items()},
            "variables": {n: list(p) for n, p in self.variables.items()},
            "tower_compute": self.tower_compute,
            "unexpected": self.unexpected,
        }

    def lines(self) -> List[str]:
        """The printable form (``--placement_report``)."""
        out = ["placement (from the runtime's partition graphs):"]
        for d, load in self.devices.items():
            out.append(
                f"  {d}: {load.ops} ops; model variables {load.model_variables} "
                f"({_size(load.model_bytes)}); slots and global step "
                f"{load.other_variables} ({_size(load.other_bytes)})"
            )
        for i, per_device in enumerate(self.tower_compute):
            where = ", ".join(f"{d} ({n} ops)" for d, n in per_device.items()) or "none seen"
            out.append(f"  tower {i} MatMul/Conv2D on: {where}")
        out.append("  unexpected: " + ("; ".join(self.unexpected) or "none"))
        return out


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


def build(
    partition_graphs: Iterable[tf.compat.v1.GraphDef],
    model_variable_names: Iterable[str],
    plan: devices.DevicePlan,
    mode,
) -> PlacementReport:
    """Builds the report from one step's RunMetadata.partition_graphs.

    Args:
      partition_graphs: the step's partition GraphDefs.
      model_variable_names: the model's variables by checkpoint name
        (TrainGraph.model_variables keys; no ``v<i>/`` replica prefix).
      plan: the devices the towers and variables were meant for.
      mode: the variable_update mode (names replicas, says where each may live).
    """
    model_names = set(model_variable_names)
    nodes = [node for g in partition_graphs for node in g.node]
    variables = {
        n.name: VariablePlacement(
            devices.canonical(n.device), _bytes(n), mode.model_name(n.name) in model_names
        )
        for n in nodes
        if n.op in VARIABLE_OPS
    }
    tower_compute = _tower_compute(nodes, len(plan.tower_devices))
    loads = _device_loads(nodes, variables)
    unexpected = _compute_misplaced(tower_compute, plan.tower_devices)
    unexpected += _variables_misplaced(variables, plan, mode)
    return PlacementReport(loads, variables, tower_compute, unexpected)


def warning(report: PlacementReport, mode) -> Optional[str]:
    """One line when the runtime placed something where the mode did not
    plan it: the numbers are the same, the speed (a replicated copy on the
    wrong GPU, variables on the CPU) is not, and nothing else would say so."""
    if not report.unexpected:
        return None
    more = len(report.unexpected) - 1
    rest = f" (+{more} more; --placement_report lists them)" if more else ""
    return (
        f"warning: placement is not what --variable_update={mode.name} plans: "
        f"{report.unexpected[0]}{rest}; a tf.device() in the model (or in a legacy cell it "
        "uses: contrib's EmbeddingWrapper pins /cpu:0) overrides tf1_train's placement "
        "(remove it: tf1_train places variables and towers)"
    )


def _bytes(node) -> int:
    dims = [d.size for d in node.attr["shape"].shape.dim]
    if any(d < 0 for d in dims):
        return 0
    return int(np.prod(dims, dtype=np.int64)) * tf.as_dtype(node.attr["dtype"].type).size


def _device_loads(nodes, variables: Dict[str, VariablePlacement]) -> Dict[str, DeviceLoad]:
    ops: Dict[str, int] = {}
    for n in nodes:
        d = devices.canonical(n.device)
        ops[d] = ops.get(d, 0) + 1
    loads = {}
    for d in sorted(ops):
        mine = [v for v in variables.values() if v.device == d]
        model = [v.bytes for v in mine if v.model]
        other = [v.bytes for v in mine if not v.model]
        loads[d] = DeviceLoad(ops[d], len(model), sum(model), len(other), sum(other))
    return loads


def _tower_compute(nodes, num_towers: int) -> List[Dict[str, int]]:
    per_tower: List[Dict[str, int]] = [{} for _ in range(num_towers)]
    for n in nodes:
        m = _TOWER.search(n.name)
        if m and _COMPUTE.search(n.op) and int(m.group(1)) < num_towers:
            counts = per_tower[int(m.group(1))]
            d = devices.canonical(n.device)
            counts[d] = counts.get(d, 0) + 1
    return [dict(sorted(c.items())) for c in per_tower]


def _compute_misplaced(tower_compute, tower_devices: Sequence[str]) -> List[str]:
    out = []
    for i, per_device in enumerate(tower_compute):
        if not per_device:
            out.append(f"tower {i}: no MatMul/Conv2D op seen in the step")
        for d, n in per_device.items():
            if d != tower_devices[i]:
                out.append(f"tower {i}: {n} MatMul/Conv2D ops on {d}, not {tower_devices[i]}")
    return out


def _variables_misplaced(variables, plan: devices.DevicePlan, mode) -> List[str]:
    out = []
    for name, v in sorted(variables.items()):
        if not v.model:
            continue
        allowed = mode.allowed_devices(name, plan)
        if v.device not in allowed:
            out.append(f"variable {name} on {v.device}, not on {' or '.join(allowed)}")
    return out
