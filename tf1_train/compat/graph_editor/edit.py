"""``tf.contrib.graph_editor.edit`` after install(): cut a subgraph view
from its surroundings (placeholders in its place), connect one view's
outputs to another's inputs, or bypass a view.
"""

from __future__ import annotations

from tensorflow.python.ops import array_ops

from tf1_train.compat.graph_editor import reroute, select, subgraph, util

__all__ = [
    "detach_control_inputs",
    "detach_control_outputs",
    "detach_inputs",
    "detach_outputs",
    "detach",
    "connect",
    "bypass",
]


def detach_control_inputs(sgv) -> None:
    """The view's ops stop waiting for ops outside it."""
    sgv = subgraph.make_view(sgv)
    for op in sgv.ops:
        reroute.remove_control_inputs(op, [c for c in op.control_inputs if c not in sgv.ops])


def detach_control_outputs(sgv, control_outputs) -> None:
    """Ops outside the view stop waiting for ops inside it."""
    if not isinstance(control_outputs, util.ControlOutputs):
        raise TypeError(f"Expected a util.ControlOutputs, got: {type(control_outputs)}")
    control_outputs.update()
    sgv = subgraph.make_view(sgv)
    for op in sgv.ops:
        for cop in control_outputs.get(op):
            if cop not in sgv.ops:
                reroute.remove_control_inputs(cop, op)


def detach_inputs(sgv, control_inputs=False):
    """``(sgv, placeholders)``: the view's ops read new placeholders
    (``geph__...``) where they read its inputs."""
    sgv = subgraph.make_view(sgv)
    with sgv.graph.as_default():
        placeholders = [
            array_ops.placeholder(t.dtype, name=util.placeholder_name(t)) for t in sgv.inputs
        ]
    reroute.swap_inputs(sgv, placeholders)
    if control_inputs:
        detach_control_inputs(sgv)
    return sgv, placeholders


def detach_outputs(sgv, control_outputs=None):
    """``(sgv, placeholders)``: whatever read the view's outputs reads new
    placeholders of their dtype and shape instead."""
    sgv = subgraph.make_view(sgv)
    read = sgv.remap_outputs([i for i, t in enumerate(sgv.outputs) if t.consumers()])
    consumers = subgraph.SubGraphView(read.consumers())
    consumers = consumers.remap_inputs(
        [i for i, t in enumerate(consumers.inputs) if t in read.outputs]
    )
    with read.graph.as_default():
        placeholders = [util.make_placeholder_from_tensor(t) for t in consumers.inputs]
    reroute.swap_outputs(read, placeholders)
    if control_outputs is not None:
        detach_control_outputs(read, control_outputs)
    return read, placeholders


def detach(sgv, control_inputs=False, control_outputs=None, control_ios=None):
    """``(sgv, input placeholders, output placeholders)``: both ends cut."""
    control_inputs, control_outputs = select.check_cios(
        control_inputs, control_outputs, control_ios
    )
    _, inputs = detach_inputs(sgv, control_inputs)
    _, outputs = detach_outputs(sgv, control_outputs)
    return sgv, inputs, outputs


def connect(sgv0, sgv1, disconnect_first=False):
    """``sgv1``'s ops read ``sgv0``'s outputs where they read their inputs."""
    sgv0, sgv1 = subgraph.make_view(sgv0), subgraph.make_view(sgv1)
    util.check_graphs(sgv0, sgv1)
    if disconnect_first:
        detach_outputs(sgv0)
    reroute.reroute_inputs(subgraph.SubGraphView(passthrough_ts=sgv0.outputs), sgv1)
    return sgv0, sgv1


def bypass(sgv):
    """``(sgv, placeholders)``: the readers of the view's outputs read its
    inputs; the view reads placeholders."""
    sgv = subgraph.make_view(sgv)
    inputs = list(sgv.inputs)
    sgv, detached = detach_inputs(sgv)
    reroute.reroute_ts(inputs, sgv.outputs)
    return sgv, detached
