"""``tf.contrib.graph_editor.reroute`` after install(): make the consumers
of one tensor read another, for single tensors or all the inputs/outputs of
subgraph views, and add or remove control inputs.

Only the consuming end of a tensor moves: an op and its outputs stay
together, as in TF 1.15. The edits go through ``Operation._update_input``
and TensorFlow 2.21's control-input calls, which change the C++ graph the
session runs, not just Python's picture of it.
"""

from __future__ import annotations

from tensorflow.python.framework import ops as tf_ops

from tf1_train.compat.graph_editor import subgraph as _subgraph
from tf1_train.compat.graph_editor import util as _util

__all__ = [
    "swap_ts",
    "reroute_ts",
    "swap_inputs",
    "reroute_inputs",
    "swap_outputs",
    "reroute_outputs",
    "swap_ios",
    "reroute_ios",
    "remove_control_inputs",
    "add_control_inputs",
]

# mode: (reroute t1's consumers onto t0, reroute t0's consumers onto t1)
_SWAP, _A2B, _B2A = (True, True), (True, False), (False, True)


def _check_ts_compatibility(ts0, ts1) -> None:
    ts0, ts1 = _util.make_list_of_t(ts0), _util.make_list_of_t(ts1)
    if len(ts0) != len(ts1):
        raise ValueError(f"ts0 and ts1 have different sizes: {len(ts0)} != {len(ts1)}")
    for t0, t1 in zip(ts0, ts1):
        if not t0.dtype.is_compatible_with(t1.dtype):
            raise ValueError(f"Dtypes {t0.dtype} and {t1.dtype} are not compatible.")
        if not t0.shape.is_compatible_with(t1.shape):
            raise ValueError(f"Shapes {t0.shape} and {t1.shape} are not compatible.")


def _reroute_t(t0, t1, consumers1, can_modify, cannot_modify) -> int:
    """Make each of ``consumers1`` (those allowed) read ``t0`` where it read ``t1``."""
    if can_modify is not None:
        consumers1 = [op for op in consumers1 if op in can_modify]
    if cannot_modify is not None:
        consumers1 = [op for op in consumers1 if op not in cannot_modify]
    slots = [(op, i) for op in consumers1 for i, t in enumerate(op.inputs) if t is t1]
    for op, i in slots:
        op._update_input(i, t0)
    return len(slots)


def _reroute_ts(ts0, ts1, mode, can_modify=None, cannot_modify=None) -> int:
    a2b, b2a = mode
    ts0, ts1 = _util.make_list_of_t(ts0), _util.make_list_of_t(ts1)
    _check_ts_compatibility(ts0, ts1)
    if cannot_modify is not None:
        cannot_modify = frozenset(_util.make_list_of_op(cannot_modify))
    if can_modify is not None:
        can_modify = frozenset(_util.make_list_of_op(can_modify))
    # consumers first, so that a tensor listed twice is not rerouted back
    consumers = [(list(t0.consumers()), list(t1.consumers())) for t0, t1 in zip(ts0, ts1)]
    updates = 0
    for t0, t1, (consumers0, consumers1) in zip(ts0, ts1, consumers):
        if t0 is t1:
            continue
        if a2b:
            updates += _reroute_t(t0, t1, consumers1, can_modify, cannot_modify)
        if b2a:
            updates += _reroute_t(t1, t0, consumers0, can_modify, cannot_modify)
    return updates


def swap_ts(ts0, ts1, can_modify=None, cannot_modify=None) -> int:
    """The consumers of each ``t0`` read ``t1`` and the reverse; returns the
    number of inputs changed."""
    return _reroute_ts(ts0, ts1, _SWAP, can_modify, cannot_modify)


def reroute_ts(ts0, ts1, can_modify=None, cannot_modify=None) -> int:
    """The consumers of each ``t1`` (those in ``can_modify``, none in
    ``cannot_modify``) read ``t0`` instead; ``t1`` is left unread."""
    return _reroute_ts(ts0, ts1, _A2B, can_modify, cannot_modify)


def _reroute_sgv_remap(sgv0, sgv1, mode) -> None:
    """Update the two views in place to show their rerouted inputs."""
    a2b, b2a = mode
    for sgv in (sgv0, sgv1):
        if not isinstance(sgv, _subgraph.SubGraphView):
            raise TypeError(f"Expected a SubGraphView, got {type(sgv)}")
    _util.check_graphs(sgv0, sgv1)
    new0, new1 = sgv0.copy(), sgv1.copy()
    if a2b and b2a:
        new0._input_ts, new1._input_ts = new1._input_ts, new0._input_ts
        new0._passthrough_ts, new1._passthrough_ts = new1._passthrough_ts, new0._passthrough_ts
    elif a2b:
        new1._input_ts, new1._passthrough_ts = new0._input_ts[:], new0._passthrough_ts[:]
    elif b2a:
        new0._input_ts, new0._passthrough_ts = new1._input_ts[:], new1._passthrough_ts[:]

    def passthrough_outputs(a, b):
        for i, t in enumerate(b._output_ts):
            if t in a._passthrough_ts:
                b._output_ts[i] = b._input_ts[a._input_ts.index(t)]

    if a2b:
        passthrough_outputs(new0, new1)
    if b2a:
        passthrough_outputs(new1, new0)
    sgv0._assign_from(new0)
    sgv1._assign_from(new1)


def _reroute_sgv_inputs(sgv0, sgv1, mode):
    sgv0, sgv1 = _subgraph.make_view(sgv0), _subgraph.make_view(sgv1)
    _util.check_graphs(sgv0, sgv1)
    can_modify = sgv0.ops + sgv1.ops
    can_modify += _util.get_consuming_ops(sgv0.passthroughs)
    can_modify += _util.get_consuming_ops(sgv1.passthroughs)
    _reroute_ts(sgv0.inputs, sgv1.inputs, mode, can_modify=can_modify)
    _reroute_sgv_remap(sgv0, sgv1, mode)
    return sgv0, sgv1


def _reroute_sgv_outputs(sgv0, sgv1, mode):
    sgv0, sgv1 = _subgraph.make_view(sgv0), _subgraph.make_view(sgv1)
    _util.check_graphs(sgv0, sgv1)
    _reroute_ts(sgv0.outputs, sgv1.outputs, mode, cannot_modify=sgv0.ops + sgv1.ops)
    return sgv0, sgv1


def _reroute_sgv(sgv0, sgv1, mode):
    _reroute_sgv_outputs(sgv0, sgv1, mode)
    _reroute_sgv_inputs(sgv0, sgv1, mode)
    return sgv0, sgv1


def swap_inputs(sgv0, sgv1):
    """Each view's ops read the other's inputs (views updated in place)."""
    return _reroute_sgv_inputs(sgv0, sgv1, _SWAP)


def reroute_inputs(sgv0, sgv1):
    """``sgv1``'s ops read ``sgv0``'s inputs (views updated in place)."""
    return _reroute_sgv_inputs(sgv0, sgv1, _A2B)


def swap_outputs(sgv0, sgv1):
    """The consumers outside the views of each one's outputs read the other's."""
    return _reroute_sgv_outputs(sgv0, sgv1, _SWAP)


def reroute_outputs(sgv0, sgv1):
    """The consumers of ``sgv1``'s outputs read ``sgv0``'s instead."""
    return _reroute_sgv_outputs(sgv0, sgv1, _A2B)


def swap_ios(sgv0, sgv1):
    return _reroute_sgv(sgv0, sgv1, _SWAP)


def reroute_ios(sgv0, sgv1):
    return _reroute_sgv(sgv0, sgv1, _A2B)


def _check_op(op) -> None:
    if not isinstance(op, tf_ops.Operation):
        raise TypeError(f"Expected a tf.Operation, got: {type(op)}")


def remove_control_inputs(op, cops) -> None:
    """``op`` no longer waits for ``cops`` (each must be a control input)."""
    _check_op(op)
    cops = _util.make_list_of_op(cops, allow_graph=False)
    for cop in cops:
        if cop not in op.control_inputs:
            raise ValueError(f"{cop.name} is not a control_input of {op.name}")
    keep = [c for c in op.control_inputs if c not in cops]
    op._remove_all_control_inputs()
    op._add_control_inputs(keep)


def add_control_inputs(op, cops) -> None:
    """``op`` waits for ``cops`` too (none may be a control input already)."""
    _check_op(op)
    cops = _util.make_list_of_op(cops, allow_graph=False)
    for cop in cops:
        if cop in op.control_inputs:
            raise ValueError(f"{cop.name} is already a control_input of {op.name}")
    op._add_control_inputs(cops)
