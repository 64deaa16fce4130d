"""The variable-update modes, one class each (see the package docstring).

* ``ParameterServer``: every variable exists once, on the parameter
  device(s) (``replica_device_setter`` or our greedy-by-bytes setter).
  Towers are built under ``reuse=True`` so they share it; each gradient is
  averaged over towers on the device of its variable (colocated, as
  tensorpack does).
* ``Replicated``: tower i keeps its own copy under ``v{i}/``. Gradients are
  all-reduced (every tower computes the same mean on its own device) and
  each copy applies it, so the copies stay identical. Checkpoints hold tower
  0's copies under the parameter_server names, so both modes read each
  other's checkpoints.

Batch-norm moving statistics follow the same idea in both: one update per
moving variable from the mean over towers of their batch statistics
(towers.py explains why).
"""

from __future__ import annotations

import contextlib
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train import devices, naming, tower_updates, towers
from tf1_train.towers import GradsAndVars, Tower

v1 = tf.compat.v1


class Mode:
    """What every mode provides; the methods are called by graph.py,
    towers.py, placement.py and the start-up lines."""

    name = ""

    def tower_scopes(self, plan: devices.DevicePlan) -> Iterator[Tuple[object, object]]:
        """Per tower: (device function or string, variable scope to enter)."""
        raise NotImplementedError

    def regularization_terms(self, made: List[List[tf.Tensor]]) -> List[tf.Tensor]:
        """The variable regularizers' loss terms the latest tower includes;
        ``made[i]`` holds those that building tower i created."""
        raise NotImplementedError

    def aggregate(self, built: Sequence[Tower]) -> GradsAndVars:
        """The (gradient, variable) pairs the optimizer applies."""
        raise NotImplementedError

    def moving_average_updates(self, built: Sequence[Tower]) -> List[tf.Operation]:
        raise NotImplementedError

    def tower_updates(self, update_ops: Sequence[List[tf.Operation]]) -> List[List[tf.Operation]]:
        """Which of each tower's UPDATE_OPS entries run (tower_updates.py)."""
        raise NotImplementedError

    def forward_writes(self, towers: int) -> str:
        """What a variable the model's forward pass writes gets with ``towers``
        towers, for tower_updates.say_forward_writes' line."""
        raise NotImplementedError

    def clip(self, grads_and_vars: GradsAndVars, norm: float) -> GradsAndVars:
        """``aggregate``'s pairs with the gradient clipped to global ``norm``
        (``tf.clip_by_global_norm``; 0: unchanged): the norm of the mean
        gradient over every variable of the model."""
        return clip_by_global_norm(grads_and_vars, norm) if norm > 0 else grads_and_vars

    def post_init_ops(self, num_towers: int) -> List[tf.Operation]:
        """Run after initialisation and after every restore."""
        return []

    def checkpoint_name(self, var_name: str) -> Optional[str]:
        """The name a variable is saved under, or None if it is not saved."""
        return var_name

    def model_name(self, var_name: str) -> str:
        """The variable's name in the model, whichever tower's copy it is."""
        return var_name

    def allowed_devices(self, var_name: str, plan: devices.DevicePlan) -> Tuple[str, ...]:
        """Where a model variable may live (checked by the placement report)."""
        return tuple(plan.param_devices)

    def eval_scope(self, custom_getter=None):
        """Variable scope of the eval replica: it reuses tower 0's variables
        (through ``custom_getter``, e.g. their moving averages, if given)."""
        return v1.variable_scope(v1.get_variable_scope(), reuse=True, custom_getter=custom_getter)

    def describe(self, plan: devices.DevicePlan) -> List[str]:
        """Start-up lines: towers -> devices, where variables live."""
        return [f"tower {i} -> {d}" for i, d in enumerate(plan.tower_devices)]

    def checkpoint_variables(self) -> Dict[str, tf.Variable]:
        """name -> variable for the Saver: every variable exactly once."""
        out = {}
        for var in v1.global_variables():
            name = self.checkpoint_name(var.op.name)
            if name is not None:
                out[name] = var
        return out


class ParameterServer(Mode):
    name = "parameter_server"

    def tower_scopes(self, plan):
        strategy = None
        if len(plan.param_devices) > 1 or plan.cluster is not None:
            strategy = devices.GreedyByBytes(plan.param_devices)
        for i, device in enumerate(plan.tower_devices):
            device_fn = devices.tower_device_fn(device, plan.param_devices, strategy, plan.cluster)
            yield device_fn, v1.variable_scope(v1.get_variable_scope(), reuse=i > 0)

    def regularization_terms(self, made):
        """Every tower shares the variables, so each includes every term
        (tower 0 made them all: later towers reuse the variables)."""
        return [t for terms in made for t in terms]

    def aggregate(self, built):
        averaged = []
        for per_var in zip(*[t.grads_and_vars for t in built]):
            var = per_var[0][1]
            with v1.colocate_with(var):
                grad = towers.mean_gradient([g for g, _ in per_var], var.op.name)
            averaged.append((grad, var))
        return averaged

    def tower_updates(self, update_ops):
        return tower_updates.tower_zero_only(update_ops)

    def forward_writes(self, towers: int) -> str:
        """What a variable the model's forward pass writes gets (tower_updates.py)."""
        return (
            f"all {towers} towers write each shared variable every step, in no fixed order: "
            "its value can change from run to run, even with --deterministic"
        )

    def moving_average_updates(self, built):
        """Every tower recorded the same shared variable; its update is
        computed next to it."""
        updates = []
        for records in zip(*[t.moving_stats for t in built]):
            with v1.colocate_with(records[0].variable):
                updates.append(towers.moving_average(records[0], [r.value for r in records]))
        return updates

    def describe(self, plan):
        how = " (greedy by bytes)" if len(plan.param_devices) > 1 else ""
        return super().describe(plan) + ["variables on: " + ", ".join(plan.param_devices) + how]


class Replicated(Mode):
    name = "replicated"

    def tower_scopes(self, plan):
        for i, device in enumerate(plan.tower_devices):
            yield device, v1.variable_scope(naming.replica_scope(i))  # each copy with its tower

    def all_reduce(self, built: Sequence[Tower]) -> List[GradsAndVars]:
        """Per tower, its copies with the mean gradient computed on its device.

        The inputs and their order are identical on every device, so the
        copies receive bit-identical updates and never drift apart.
        """
        per_tower: List[GradsAndVars] = [[] for _ in built]
        for j, per_var in enumerate(zip(*[t.grads_and_vars for t in built])):
            grads = [g for g, _ in per_var]
            for i, tower in enumerate(built):
                var = tower.grads_and_vars[j][1]
                with tf.device(tower.device):
                    per_tower[i].append((towers.mean_gradient(grads, var.op.name), var))
        return per_tower

    def regularization_terms(self, made):
        """Tower i includes its own copies' terms (made under ``v{i}/``)."""
        return list(made[-1])

    def aggregate(self, built):
        return [gv for tower in self.all_reduce(built) for gv in tower]

    def clip(self, grads_and_vars, norm):
        """Each tower's copy set is clipped on its own device by its own
        global norm: the copies' gradients are identical, so are the norms
        and the clipped gradients, and the copies stay identical."""
        if norm <= 0:
            return grads_and_vars
        by_tower: Dict[Optional[int], GradsAndVars] = {}
        for grad, var in grads_and_vars:
            by_tower.setdefault(naming.replica_index(var.op.name), []).append((grad, var))
        clipped = []
        for pairs in by_tower.values():
            with tf.device(pairs[0][1].device):
                clipped += clip_by_global_norm(pairs, norm)
        return clipped

    def tower_updates(self, update_ops):
        return tower_updates.each_on_its_copy(update_ops)

    def forward_writes(self, towers: int) -> str:
        del towers
        return "each tower's runs on its own copy, and copy 0's (tower 0's batch) is saved"

    def moving_average_updates(self, built):
        """Tower i recorded its own copy; each copy's update is computed on
        its tower's device from the same inputs in the same order, so all
        copies receive bit-identical values."""
        updates = []
        for records in zip(*[t.moving_stats for t in built]):
            values = [r.value for r in records]
            for record, tower in zip(records, built):
                with tf.device(tower.device):
                    updates.append(towers.moving_average(record, values))
        return updates

    def post_init_ops(self, num_towers):
        """Copies tower 0's variables into the other towers' copies
        (checkpoints hold tower 0's copy only)."""
        by_name = {v.op.name: v for v in v1.global_variables()}
        ops = []
        for name, var in sorted(by_name.items()):
            if naming.replica_index(name) != 0:
                continue
            rest = naming.strip_replica(name)
            for i in range(1, num_towers):
                copy = by_name.get(f"{naming.replica_scope(i)}/{rest}")
                if copy is not None:
                    ops.append(copy.assign(var.read_value()).op)
        return ops

    def checkpoint_name(self, var_name):
        """Tower 0's copies lose the ``v0/`` prefix; other towers' copies are
        not saved; anything else (global step, slots of shared ops) keeps its name."""
        index = naming.replica_index(var_name)
        if index is None:
            return var_name
        return naming.strip_replica(var_name) if index == 0 else None

    def model_name(self, var_name):
        return naming.strip_replica(var_name)

    def allowed_devices(self, var_name, plan):
        index = naming.replica_index(var_name)
        return (
            super().allowed_devices(var_name, plan)
            if index is None
            else (plan.tower_devices[index],)
        )

    @contextlib.contextmanager
    def eval_scope(self, custom_getter=None):
        with v1.variable_scope(naming.replica_scope(0), reuse=True, custom_getter=custom_getter):
            yield

    def describe(self, plan):
        return super().describe(plan) + [
            "variables: one copy per tower, on its device (replicated)"
        ]


def clip_by_global_norm(grads_and_vars: GradsAndVars, norm: float) -> GradsAndVars:
    """The pairs with their gradients scaled by ``min(1, norm / global_norm)``;
    a None gradient stays None."""
    grads, variables = zip(*grads_and_vars)
    clipped, _ = tf.clip_by_global_norm(list(grads), norm)
    return list(zip(clipped, variables))
