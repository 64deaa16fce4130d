"""``tf.contrib.graph_editor.transform`` after install(): copy a subgraph
view (into its own graph or another), with some of its inputs replaced, and
``graph_replace``: the targets recomputed from other tensors.

Ops are copied after the ops they read, each on its copied inputs, as TF
1.15 did. A TF 1.x while loop (control flow v1, a cycle
through ``NextIteration``) is refused in one line: TensorFlow 2.21 checks
each new op's loop context and rejects such copies, while a TensorFlow 2
``while_loop`` (one op naming its functions) copies. The handlers keep TF
1.15's names and arguments (``transform_op_handler(info, op, new_inputs)``),
so a program's own ``Transformer`` handlers still plug in. Across graphs,
the functions a copied op names (TensorFlow 2's ``cond`` and ``while_loop``
build such ops) are copied with it.
"""

from __future__ import annotations

import collections
import copy as _copy
from functools import partial

from tensorflow.python.framework import ops as tf_ops

from tf1_train.compat.graph_editor import reroute, select, subgraph, util

__all__ = [
    "replace_t_with_placeholder_handler",
    "keep_t_if_possible_handler",
    "assign_renamed_collections_handler",
    "transform_op_if_inside_handler",
    "copy_op_handler",
    "Transformer",
    "TransformerInfo",
    "copy",
    "copy_with_input_replacements",
    "graph_replace",
]


def replace_t_with_placeholder_handler(info, t):
    """An input of the subgraph becomes a placeholder in the destination."""
    with info.graph_.as_default():
        return util.make_placeholder_from_tensor(t, scope=info.scope_)


def keep_t_if_possible_handler(info, t):
    """An input stays itself within one graph; a placeholder across graphs."""
    return t if info.graph is info.graph_ else replace_t_with_placeholder_handler(info, t)


def assign_renamed_collections_handler(info, elem, elem_) -> None:
    """The copy joins its original's collections: ``tf.GraphKeys``' under
    their own names, the others renamed into the destination scope."""
    known = util.get_predefined_collection_names()
    for name, collection in info.collections.items():
        if any(x is elem for x in collection):
            info.graph_.add_to_collection(name if name in known else info.new_name(name), elem_)


def transform_op_if_inside_handler(info, op, keep_if_possible=True):
    """An op of the subgraph becomes its copy; one outside stays itself
    within one graph and is dropped (None) across graphs."""
    if op in info.ops:
        return info.transformed_ops[op]
    return op if keep_if_possible and info.graph is info.graph_ else None


def _copy_functions(info, op) -> None:
    """Functions an op names (a v2 ``cond``'s branches, a ``while_loop``'s
    cond and body) go with it to another graph."""
    if info.graph is info.graph_:
        return
    for value in op.node_def.attr.values():
        for func in [value.func] * value.HasField("func") + list(value.list.func):
            if func.name and not info.graph_._is_function(func.name):
                info.graph_._add_function_recursive(info.graph._get_function(func.name))


def copy_op_handler(info, op, new_inputs, copy_shape=False, nodedef_fn=None):
    """``(copy, its outputs)``: ``op`` made again in the destination graph,
    renamed into the destination scope, reading ``new_inputs``; ``nodedef_fn``
    may change its NodeDef first (attributes an Operation cannot change)."""
    if isinstance(new_inputs, bool):  # TF 1.15's guard: a pre-1.9 call's copy_shape
        raise TypeError("the `new_inputs` argument must be an iterable.")
    node_def = _copy.deepcopy(op.node_def)
    node_def.name = info.graph_.unique_name(info.new_name(op.name))
    if nodedef_fn is not None:
        node_def = nodedef_fn(node_def)
    _copy_functions(info, op)
    op_ = tf_ops.Operation.from_node_def(
        node_def,
        info.graph_,
        inputs=list(new_inputs),
        input_types=list(op._input_types),
        op_def=op.op_def,
    )
    if copy_shape:
        for t, t_ in zip(op.outputs, op_.outputs):
            t_.set_shape(t.shape)
    if op._original_op is not None:  # finalised once every op is copied
        op_._original_op = op._original_op
    return op_, op_.outputs


class TransformerInfo:
    """What a transform made: original ops and tensors to their copies."""

    def __init__(self, info):
        self._graph, self._scope = info.graph, info.scope
        self._graph_, self._scope_ = info.graph_, info.scope_
        self._transformed_ops = info.transformed_ops
        self._transformed_ts = info.transformed_ts

    def _maps(self, top):
        if isinstance(top, tf_ops.Operation):
            return [self._transformed_ops]
        if isinstance(top, tf_ops.Tensor):
            return [self._transformed_ts]
        if isinstance(top, str):  # a name: an op's or a tensor's
            return [self._transformed_ops, self._transformed_ts]
        raise TypeError(f"Expected a tf.Tensor or a tf.Operation, got a {type(top)}")

    def _lookup(self, top, missing_fn, to_copy: bool):
        """The copy of ``top`` (``to_copy``) or its original, by object or name."""
        for mapping in self._maps(top):
            for original, transformed in mapping.items():
                key, value = (original, transformed) if to_copy else (transformed, original)
                if key is top or key.name == top:
                    return value
        return None if missing_fn is None else missing_fn(top)

    def _transformed_elem(self, original_top, missing_fn=None):
        return self._lookup(original_top, missing_fn, to_copy=True)

    def _original_elem(self, transformed_top, missing_fn=None):
        return self._lookup(transformed_top, missing_fn, to_copy=False)

    def transformed(self, original, missing_fn=None):
        """The copies of an op, a tensor, a name or a tree of them (None, or
        ``missing_fn(original)``, where there is no copy)."""
        return util.transform_tree(original, partial(self._transformed_elem, missing_fn=missing_fn))

    def original(self, transformed, missing_fn=None):
        """The originals of copies, as ``transformed`` does the reverse."""
        return util.transform_tree(transformed, partial(self._original_elem, missing_fn=missing_fn))

    def __str__(self):
        lines = ["Transform result info:"]
        if self._graph is self._graph_:
            lines.append(f"  Within graph[{id(self._graph)}]{'' if self._scope_ else ' IN-PLACE'}")
        else:
            lines.append(f"  graph[{id(self._graph)}] => graph[{id(self._graph_)}]")
        if self._scope:
            lines.append(f"  Relative to source scope: {self._scope}")
        if self._scope_:
            lines.append(f"  Scope destination: {self._scope_}")
        lines.append("Operations mapping:")
        lines += [f"  {op.name} => {op_.name}" for op, op_ in self._transformed_ops.items()]
        return "\n".join(lines) + "\n"


class _TmpInfo:
    """One transform call's state, handed to the handlers."""

    def __init__(self, transformer, sgv, dst_graph, dst_scope, src_scope):
        self.transformer = transformer
        self.sgv = sgv
        self.sgv_inputs_set = frozenset(sgv.inputs)
        self.ops = frozenset(sgv.ops)
        self.control_outputs = util.ControlOutputs(sgv.graph)
        self.graph, self.scope = sgv.graph, src_scope
        self.graph_, self.scope_ = dst_graph, dst_scope
        self.transformed_ops: dict = {}
        self.transformed_ts: dict = {}
        self.collections = {
            k: self.graph.get_collection(k) for k in self.graph.get_all_collection_keys()
        }
        self.transform_original_op_handler = transformer.transform_original_op_handler

    def new_name(self, name: str) -> str:
        if not name.startswith(self.scope):
            raise ValueError(f"{name} does not belong to source scope: {self.scope}.")
        return self.scope_ + name[len(self.scope) :]


def _dependency_order(ops) -> list:
    """``ops`` each after the ops of ``ops`` whose outputs it reads, ties in
    the order the graph made them (TF 1.x's ``cond`` rewires an op to a
    Switch made after it, so creation order alone is not enough)."""
    ops = sorted(ops, key=lambda op: op._id)
    inside = set(ops)
    waiting = {op: {t.op for t in op.inputs if t.op in inside} - {op} for op in ops}
    readers: dict = {}
    for op in ops:
        for dep in waiting[op]:
            readers.setdefault(dep, []).append(op)
    ready = collections.deque(op for op in ops if not waiting[op])
    order = []
    while ready:
        op = ready.popleft()
        order.append(op)
        for reader in readers.get(op, ()):
            waiting[reader].discard(op)
            if not waiting[reader]:
                ready.append(reader)
    if len(order) < len(ops):  # what is left reads itself through a loop
        op = next(op for op in ops if waiting[op])
        raise ValueError(
            f"graph_editor: {op.name} reads {sorted(d.name for d in waiting[op])[0]}, which "
            "depends on it: a TF 1.x while loop (control flow v1), which tf1_train's graph "
            "editor does not copy; TensorFlow 2's while_loop copies (the default, unless the "
            "program calls disable_control_flow_v2() or disable_v2_behavior())"
        )
    return order


class Transformer:
    """Copies a subgraph view; its handlers (TF 1.15's attributes) decide
    how ops, inputs, hidden inputs, control inputs and collections carry over."""

    def __init__(self):
        self.transform_op_handler = copy_op_handler
        self.transform_control_input_handler = transform_op_if_inside_handler
        self.assign_collections_handler = assign_renamed_collections_handler
        self.transform_external_input_handler = replace_t_with_placeholder_handler
        self.transform_external_hidden_input_handler = keep_t_if_possible_handler
        self.transform_original_op_handler = transform_op_if_inside_handler

    def __call__(self, sgv, dst_graph, dst_scope, src_scope="", reuse_dst_scope=False):
        """``(view of the copy, TransformerInfo)``."""
        sgv = subgraph.make_view(sgv)
        if not isinstance(dst_graph, tf_ops.Graph):
            raise TypeError(f"Expected a tf.Graph, got: {type(dst_graph)}")
        src_scope, dst_scope = util.scope_finalize(src_scope), util.scope_finalize(dst_scope)
        if dst_scope and not reuse_dst_scope:
            dst_scope = util.scope_finalize(dst_graph.unique_name(dst_scope[:-1]))
        info = _TmpInfo(self, sgv, dst_graph, dst_scope, src_scope)
        self._copy_ops(info)
        self._connect_ops(info)
        return self._transform_sgv(info, sgv), TransformerInfo(info)

    def _copy_ops(self, info) -> None:
        """Each op copied on its copied inputs, after the ops it reads."""
        for op in _dependency_order(info.sgv.ops):
            new_inputs = [self._transformed_t(info, t) for t in op.inputs]
            op_, outputs_ = self.transform_op_handler(info, op, new_inputs)
            if op is op_:
                raise ValueError("In-place transformation not allowed.")
            info.transformed_ops[op] = op_
            self.assign_collections_handler(info, op, op_)
            for t, t_ in zip(op.outputs, outputs_):
                info.transformed_ts[t] = t_
                self.assign_collections_handler(info, t, t_)

    def _connect_ops(self, info) -> None:
        """Original ops and control inputs carried over."""
        for op in info.sgv.ops:
            op_ = info.transformed_ops[op]
            if op._original_op is not None:
                op_._original_op = info.transform_original_op_handler(info, op._original_op)
            control = [self.transform_control_input_handler(info, c) for c in op.control_inputs]
            control = [c for c in control if c is not None and c not in op_.control_inputs]
            reroute.add_control_inputs(op_, control)

    def _transform_sgv(self, info, sgv):
        """The copy's view, inputs and outputs in the original's order."""
        sgv_ = subgraph.SubGraphView(list(info.transformed_ops.values()))
        inputs_, outputs_ = list(sgv_.inputs), list(sgv_.outputs)
        input_map = [
            sgv_.input_index(info.transformed_ts[t])
            for t in sgv.inputs
            if t in info.transformed_ts and info.transformed_ts[t] in inputs_
        ]
        output_map = [
            sgv_.output_index(info.transformed_ts[t])
            for t in sgv.outputs
            if t in info.transformed_ts and info.transformed_ts[t] in outputs_
        ]
        return sgv_.remap(input_map, output_map)

    def _transformed_t(self, info, t):
        if t in info.transformed_ts:
            return info.transformed_ts[t]
        if t in info.sgv_inputs_set:
            t_ = self.transform_external_input_handler(info, t)
        else:
            t_ = self.transform_external_hidden_input_handler(info, t)
        info.transformed_ts[t] = t_
        return t_


Transformer.ResultInfo = TransformerInfo  # TF 1.x before 1.5 named it so


def _view_and_graph(sgv, dst_graph):
    sgv = subgraph.make_view(sgv)
    dst_graph = sgv.graph if dst_graph is None else dst_graph
    if not isinstance(dst_graph, tf_ops.Graph):
        raise TypeError(f"Expected a tf.Graph, got: {type(dst_graph)}")
    return sgv, dst_graph


def copy(sgv, dst_graph=None, dst_scope="", src_scope="", reuse_dst_scope=False):
    """``(view, info)`` of a copy of the subgraph; its inputs become
    placeholders (``geph__...``)."""
    sgv, dst_graph = _view_and_graph(sgv, dst_graph)
    return Transformer()(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope=reuse_dst_scope)


def copy_with_input_replacements(
    sgv, replacement_ts, dst_graph=None, dst_scope="", src_scope="", reuse_dst_scope=False
):
    """``(view, info)`` of a copy reading ``replacement_ts[t]`` for each
    replaced input ``t``, and its other inputs as they are (same graph)."""
    sgv, dst_graph = _view_and_graph(sgv, dst_graph)
    copier = Transformer()

    def replace_t_with_replacement_handler(info, t):
        if t in replacement_ts:
            return replacement_ts[t]
        return keep_t_if_possible_handler(info, t)

    copier.transform_external_input_handler = replace_t_with_replacement_handler
    return copier(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope=reuse_dst_scope)


def graph_replace(target_ts, replacement_ts, dst_scope="", src_scope="", reuse_dst_scope=False):
    """The targets (a tensor or a tree of them) recomputed with each key of
    ``replacement_ts`` replaced by its value; the graph between is copied."""
    flat = util.flatten_tree(target_ts)
    graph = util.get_unique_graph(flat, check_types=(tf_ops.Tensor,))
    ops = select.get_walks_intersection_ops(
        list(replacement_ts), flat, control_ios=util.ControlOutputs(graph)
    )
    if not ops:
        raise ValueError("Targets and replacements are not connected!")
    _, info = copy_with_input_replacements(
        ops, replacement_ts, None, dst_scope, src_scope, reuse_dst_scope
    )
    return info.transformed(target_ts, lambda original: original)
