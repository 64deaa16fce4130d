"""``tf.contrib.graph_editor.select`` after install(): ops and tensors
chosen by name, by scope, by boundary, or by walking the graph forward from
some ops and backward from others.

TF 1.15's walks collected each wave in a ``set``, so the order of the ops
they returned changed from run to run; here each wave keeps the order the
walk met its ops in (the same ops, a fixed order).
"""

from __future__ import annotations

import re

from tensorflow.python.framework import ops as tf_ops

from tf1_train.compat.graph_editor import util

__all__ = [
    "filter_ts",
    "filter_ts_from_regex",
    "filter_ops",
    "filter_ops_from_regex",
    "get_name_scope_ops",
    "check_cios",
    "get_ops_ios",
    "compute_boundary_ts",
    "get_within_boundary_ops",
    "get_forward_walk_ops",
    "get_backward_walk_ops",
    "get_walks_intersection_ops",
    "get_walks_union_ops",
    "select_ops",
    "select_ts",
    "select_ops_and_ts",
]

_RE_TYPE = type(re.compile(""))


def can_be_regex(obj) -> bool:
    return isinstance(obj, (str, _RE_TYPE))


def make_regex(obj):
    if not can_be_regex(obj):
        raise ValueError(f"Expected a string or a regex, got: {type(obj)}")
    return re.compile(obj) if isinstance(obj, str) else obj


def _get_input_ts(ops) -> list:
    return util.concatenate_unique([], [t for op in util.make_list_of_op(ops) for t in op.inputs])


def _get_output_ts(ops) -> list:
    return [t for op in util.make_list_of_op(ops) for t in op.outputs]


def filter_ts(ops, positive_filter) -> list:
    """The inputs, then the outputs, of ``ops`` (each once) that pass the
    filter (``True``: all of them)."""
    ops = util.make_list_of_op(ops)
    ts = util.concatenate_unique(_get_input_ts(ops), _get_output_ts(ops))
    return ts if positive_filter is True else [t for t in ts if positive_filter(t)]


def filter_ts_from_regex(ops, regex) -> list:
    """The tensors of ``ops`` whose name the regex finds (``re.search``)."""
    regex = make_regex(regex)
    return filter_ts(util.make_list_of_op(ops), lambda t: regex.search(t.name))


def filter_ops(ops, positive_filter) -> list:
    ops = util.make_list_of_op(ops)
    return ops if positive_filter is True else [op for op in ops if positive_filter(op)]


def filter_ops_from_regex(ops, regex) -> list:
    regex = make_regex(regex)
    return filter_ops(util.make_list_of_op(ops), lambda op: regex.search(op.name))


def get_name_scope_ops(ops, scope: str) -> list:
    """The ops of ``ops`` named ``scope`` or under ``scope/``."""
    scope = scope[:-1] if scope and scope[-1] == "/" else scope
    return filter_ops_from_regex(ops, f"^{scope}(/.*)?$")


def check_cios(control_inputs=False, control_outputs=None, control_ios=None):
    """``(control_inputs, control_outputs)`` from the three ways TF 1.15's
    functions took them; ``control_ios`` means both."""
    if control_ios is not None:
        if not isinstance(control_ios, util.ControlOutputs):
            raise TypeError(f"Expected a util.ControlOutputs, got: {type(control_ios)}")
        if control_outputs is not None:
            raise ValueError("control_outputs should be None when using control_ios.")
        control_inputs, control_outputs = True, control_ios
    elif control_outputs is not None and not isinstance(control_outputs, util.ControlOutputs):
        raise TypeError(f"Expected a util.ControlOutputs, got: {type(control_outputs)}")
    if control_outputs is not None:
        control_outputs.update()
    return control_inputs, control_outputs


def get_ops_ios(ops, control_inputs=False, control_outputs=None, control_ios=None) -> list:
    """Every op connected to an op of ``ops``: producers of its inputs,
    consumers of its outputs (and control edges when asked)."""
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    res: list = []
    for op in util.make_list_of_op(ops):
        util.concatenate_unique(res, [t.op for t in op.inputs])
        for t in op.outputs:
            util.concatenate_unique(res, t.consumers())
        if control_outputs is not None:
            util.concatenate_unique(res, control_outputs.get(op))
        if control_inputs:
            util.concatenate_unique(res, op.control_inputs)
    return res


def compute_boundary_ts(ops):
    """``(inputs, outputs, insides)`` of ``ops``: tensors read and not made
    inside; tensors made inside and read outside or by nothing; tensors made
    and read inside (one read outside too is both inside and an output)."""
    ops = util.make_list_of_op(ops)
    input_ts, output_ts = _get_input_ts(ops), _get_output_ts(ops)
    output_set, ops_set = frozenset(output_ts), frozenset(ops)
    inside = [t for t in input_ts if t in output_set]
    only_inside = frozenset(t for t in inside if not frozenset(t.consumers()) - ops_set)
    inside_set = frozenset(inside)
    return (
        [t for t in input_ts if t not in inside_set],
        [t for t in output_ts if t not in only_inside],
        inside,
    )


def get_within_boundary_ops(
    ops,
    seed_ops,
    boundary_ops=(),
    inclusive=True,
    control_inputs=False,
    control_outputs=None,
    control_ios=None,
) -> list:
    """The ops of ``ops`` reached from ``seed_ops`` in either direction
    without crossing ``boundary_ops``."""
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    ops = util.make_list_of_op(ops)
    seed_ops = util.make_list_of_op(seed_ops, allow_graph=False)
    boundary = set(util.make_list_of_op(boundary_ops))
    res = set(seed_ops)
    if boundary & res:
        raise ValueError("Boundary is intersecting with the seeds.")
    wave = list(seed_ops)
    while wave:
        new_wave = []
        for op in get_ops_ios(wave, control_inputs, control_outputs):
            if op in res:
                continue
            if op in boundary:
                if inclusive:
                    res.add(op)
            else:
                new_wave.append(op)
                res.add(op)
        wave = new_wave
    return [op for op in ops if op in res]


def _seeds(seed_ops, from_tensors):
    if not util.is_iterable(seed_ops):
        seed_ops = [seed_ops]
    seed_ops = list(seed_ops)
    if seed_ops and isinstance(seed_ops[0], tf_ops.Tensor):
        return from_tensors(util.make_list_of_t(seed_ops, allow_graph=False))
    return util.make_list_of_op(seed_ops, allow_graph=False)


def _walk(seeds, within_ops, within_ops_fn, inclusive, neighbours) -> list:
    """Breadth-first from ``seeds`` (those inside ``within_ops``) along
    ``neighbours(op)`` to the ops inside ``within_ops`` and passing
    ``within_ops_fn``, in the order ops are met."""
    within = frozenset(util.make_list_of_op(within_ops, allow_graph=False)) if within_ops else None
    seeds = util.concatenate_unique([], [op for op in seeds if within is None or op in within])

    def inside(op):
        return (within is None or op in within) and (within_ops_fn is None or within_ops_fn(op))

    result, seen, wave = list(seeds), set(seeds), list(seeds)
    while wave:
        new_wave = []
        for op in wave:
            for new_op in neighbours(op):
                if new_op not in seen and inside(new_op):
                    seen.add(new_op)
                    new_wave.append(new_op)
        result += new_wave
        wave = new_wave
    if not inclusive:
        seed_set = set(seeds)
        result = [op for op in result if op not in seed_set]
    return result


def get_forward_walk_ops(
    seed_ops,
    inclusive=True,
    within_ops=None,
    within_ops_fn=None,
    stop_at_ts=(),
    control_outputs=None,
) -> list:
    """The ops downstream of ``seed_ops`` (or of the consumers of the given
    tensors), not going past ``stop_at_ts``."""
    _, control_outputs = check_cios(False, control_outputs)
    seeds = _seeds(seed_ops, util.get_consuming_ops)
    if not seeds:
        return []
    stop = frozenset(util.make_list_of_t(stop_at_ts))

    def downstream(op):
        out = [c for t in op.outputs if t not in stop for c in t.consumers()]
        return out + list(control_outputs.get(op)) if control_outputs is not None else out

    return _walk(seeds, within_ops, within_ops_fn, inclusive, downstream)


def get_backward_walk_ops(
    seed_ops,
    inclusive=True,
    within_ops=None,
    within_ops_fn=None,
    stop_at_ts=(),
    control_inputs=False,
) -> list:
    """The ops upstream of ``seed_ops`` (or of the producers of the given
    tensors), not going past ``stop_at_ts``."""
    seeds = _seeds(seed_ops, util.get_generating_ops)
    if not seeds:
        return []
    stop = frozenset(util.make_list_of_t(stop_at_ts))

    def upstream(op):
        out = [t.op for t in op.inputs if t not in stop]
        return out + list(op.control_inputs) if control_inputs else out

    return _walk(seeds, within_ops, within_ops_fn, inclusive, upstream)


def _both_walks(
    forward_seed_ops,
    backward_seed_ops,
    forward_inclusive,
    backward_inclusive,
    within_ops,
    within_ops_fn,
    control_inputs,
    control_outputs,
    control_ios,
):
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    forward = get_forward_walk_ops(
        forward_seed_ops,
        inclusive=forward_inclusive,
        within_ops=within_ops,
        within_ops_fn=within_ops_fn,
        control_outputs=control_outputs,
    )
    backward = get_backward_walk_ops(
        backward_seed_ops,
        inclusive=backward_inclusive,
        within_ops=within_ops,
        within_ops_fn=within_ops_fn,
        control_inputs=control_inputs,
    )
    return forward, backward


def get_walks_intersection_ops(
    forward_seed_ops,
    backward_seed_ops,
    forward_inclusive=True,
    backward_inclusive=True,
    within_ops=None,
    within_ops_fn=None,
    control_inputs=False,
    control_outputs=None,
    control_ios=None,
) -> list:
    """The ops both downstream of the forward seeds and upstream of the
    backward ones: what lies between (graph_replace's subgraph)."""
    forward, backward = _both_walks(
        forward_seed_ops,
        backward_seed_ops,
        forward_inclusive,
        backward_inclusive,
        within_ops,
        within_ops_fn,
        control_inputs,
        control_outputs,
        control_ios,
    )
    backward = set(backward)
    return [op for op in forward if op in backward]


def get_walks_union_ops(
    forward_seed_ops,
    backward_seed_ops,
    forward_inclusive=True,
    backward_inclusive=True,
    within_ops=None,
    within_ops_fn=None,
    control_inputs=False,
    control_outputs=None,
    control_ios=None,
) -> list:
    """The ops downstream of the forward seeds or upstream of the backward ones."""
    forward, backward = _both_walks(
        forward_seed_ops,
        backward_seed_ops,
        forward_inclusive,
        backward_inclusive,
        within_ops,
        within_ops_fn,
        control_inputs,
        control_outputs,
        control_ios,
    )
    return util.concatenate_unique(forward, backward)


def _options(kwargs, own: str, other: str):
    graph, positive_filter, restrict = None, None, False
    for k, v in kwargs.items():
        if k == "graph":
            graph = v
            if graph is not None and not isinstance(graph, tf_ops.Graph):
                raise TypeError(f"Expected a tf.Graph, got: {type(graph)}")
        elif k == "positive_filter":
            positive_filter = v
        elif k == own:
            restrict = v
        elif k != other:
            raise ValueError(f"Wrong keywords argument: {k}.")
    return graph, positive_filter, restrict


def _select(args, kwargs, kind: str):
    """select_ops (kind "ops") or select_ts (kind "ts"): regexes name the
    graph's ops or tensors (a regex starting ``(?#ops)`` / ``(?#ts)`` is for
    that kind only), other arguments are ops/tensors, the other kind ignored."""
    other_kind = "ts" if kind == "ops" else "ops"
    graph, keep, restrict = _options(
        kwargs, f"restrict_{kind}_regex", f"restrict_{other_kind}_regex"
    )
    by_regex = filter_ops_from_regex if kind == "ops" else filter_ts_from_regex
    as_list = (
        (lambda a: util.make_list_of_op(a, ignore_ts=True))
        if kind == "ops"
        else (lambda a: util.make_list_of_t(a, ignore_ops=True))
    )
    found: list = []
    for arg in args:
        if can_be_regex(arg):
            if graph is None:
                raise ValueError("Use the keyword argument 'graph' to use regex.")
            regex = make_regex(arg)
            if regex.pattern.startswith(f"(?#{other_kind})"):
                continue
            if restrict and not regex.pattern.startswith(f"(?#{kind})"):
                continue
            candidates = by_regex(graph, regex)
        else:
            candidates = as_list(arg)
        util.concatenate_unique(found, [x for x in candidates if keep is None or keep(x)])
    return found


def select_ops(*args, **kwargs) -> list:
    """Ops from regexes (with ``graph=``) and (lists of) ops; tensors ignored."""
    return _select(args, kwargs, "ops")


def select_ts(*args, **kwargs) -> list:
    """Tensors from regexes (with ``graph=``) and (lists of) tensors; ops ignored."""
    return _select(args, kwargs, "ts")


def select_ops_and_ts(*args, **kwargs):
    """``(ops, ts)``; only regexes starting ``(?#ts)`` select tensors."""
    return (
        select_ops(*args, restrict_ops_regex=False, **kwargs),
        select_ts(*args, restrict_ts_regex=True, **kwargs),
    )
