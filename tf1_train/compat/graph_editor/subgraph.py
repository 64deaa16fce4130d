"""``tf.contrib.graph_editor.subgraph`` after install(): ``SubGraphView``,
a view of some ops of a graph as a function from its input tensors to its
output tensors, and ``make_view`` (``ge.sgv``) to build one.

A view never changes the graph. Its inputs are the tensors its ops read and
do not make; its outputs the tensors its ops make that something outside
reads (or nothing reads); passthrough tensors go straight from input to
output. Inputs and outputs can be remapped (reordered, dropped, outputs
repeated) without touching the ops, as TF 1.15's could.
"""

from __future__ import annotations

import copy

from tf1_train.compat.graph_editor import select, util

__all__ = ["SubGraphView", "make_view", "make_view_from_scope"]


def _check_within_range(mapping, n: int, repetition: bool) -> None:
    for i in mapping:
        if not 0 <= i < n:
            raise ValueError(f"Out of [0, {n}[ range: {i}")
    if not repetition and len(set(mapping)) != len(mapping):
        raise ValueError(f"Found repetition in mapping: {mapping}")


class SubGraphView:
    """Some ops of one graph, with ordered inputs and outputs."""

    def __init__(self, inside_ops=(), passthrough_ts=()):
        inside_ops = util.make_list_of_op(inside_ops)
        passthrough_ts = util.make_list_of_t(passthrough_ts)
        self._graph = None
        self._ops, self._passthrough_ts, self._input_ts, self._output_ts = [], [], [], []
        if inside_ops or passthrough_ts:
            self._graph = util.get_unique_graph(inside_ops + passthrough_ts)
            self._ops = inside_ops
            inputs, outputs, insides = select.compute_boundary_ts(inside_ops)
            connected = frozenset(inputs + outputs + list(insides))
            self._passthrough_ts = [t for t in passthrough_ts if t not in connected]
            self._input_ts = inputs + self._passthrough_ts
            self._output_ts = outputs + self._passthrough_ts

    def __copy__(self):
        result = self.__class__.__new__(self.__class__)
        for k, v in self.__dict__.items():
            setattr(result, k, v if k == "_graph" else list(v))
        return result

    def _assign_from(self, other: SubGraphView) -> None:
        if not isinstance(other, SubGraphView):
            raise TypeError(f"Expected SubGraphView, got: {type(other)}")
        self._graph = other._graph
        self._ops = list(other._ops)
        self._passthrough_ts = list(other._passthrough_ts)
        self._input_ts = list(other._input_ts)
        self._output_ts = list(other._output_ts)

    def copy(self) -> SubGraphView:
        """Another view of the same ops (the graph is not copied)."""
        return copy.copy(self)

    def _remap_default(self, remove_input_map=True, remove_output_map=True):
        if remove_input_map or remove_output_map:
            inputs, outputs, _ = select.compute_boundary_ts(self._ops)
            if remove_input_map:
                self._input_ts = list(inputs) + self._passthrough_ts
            if remove_output_map:
                self._output_ts = list(outputs) + self._passthrough_ts

    def remap_default(self, remove_input_map=True, remove_output_map=True) -> SubGraphView:
        res = self.copy()
        res._remap_default(remove_input_map, remove_output_map)
        return res

    def _remap_inputs(self, new_input_indices):
        _check_within_range(new_input_indices, len(self._input_ts), repetition=False)
        self._input_ts = [self._input_ts[i] for i in new_input_indices]

    def _remap_outputs(self, new_output_indices):
        _check_within_range(new_output_indices, len(self._output_ts), repetition=True)
        self._output_ts = [self._output_ts[i] for i in new_output_indices]

    def _remap_outputs_make_unique(self):
        self._output_ts = util.concatenate_unique([], list(self._output_ts))

    def _remap_outputs_to_consumers(self):
        self._remap_outputs_make_unique()
        self._output_ts = [t for t in self._output_ts for _ in t.consumers()]

    def remap_outputs_make_unique(self) -> SubGraphView:
        res = self.copy()
        res._remap_outputs_make_unique()
        return res

    def remap_outputs_to_consumers(self) -> SubGraphView:
        """Each output repeated once per consumer (what reroutes one by one)."""
        res = self.copy()
        res._remap_outputs_to_consumers()
        return res

    def _remove_unused_ops(self, control_inputs=True):
        used = set(
            select.get_walks_union_ops(
                self.connected_inputs,
                self.connected_outputs,
                within_ops=self._ops,
                control_inputs=control_inputs,
            )
        )
        self._ops = [op for op in self._ops if op in used]

    def remove_unused_ops(self, control_inputs=True) -> SubGraphView:
        """A view of only the ops connected to its inputs or outputs."""
        res = self.copy()
        res._remove_unused_ops(control_inputs)
        return res

    def remap_inputs(self, new_input_indices) -> SubGraphView:
        """Inputs ``[t0, t1, t2]`` remapped by ``[2, 0]`` are ``[t2, t0]``
        (no repetition); the graph is untouched."""
        res = self.copy()
        res._remap_inputs(new_input_indices)
        return res

    def remap_outputs(self, new_output_indices) -> SubGraphView:
        """Outputs remapped by indices (repetition allowed)."""
        res = self.copy()
        res._remap_outputs(new_output_indices)
        return res

    def remap(self, new_input_indices=None, new_output_indices=None) -> SubGraphView:
        res = self.copy()
        if new_input_indices is not None:
            res._remap_inputs(new_input_indices)
        if new_output_indices is not None:
            res._remap_outputs(new_output_indices)
        return res

    def find_op_by_name(self, op_name: str):
        res = [op for op in self._ops if op.name == op_name]
        if not res:
            raise ValueError(f"{op_name} not in subgraph.")
        if len(res) > 1:
            raise AssertionError(f"More than 1 op named: {op_name}!")
        return res[0]

    def __getitem__(self, op_name: str):
        return self.find_op_by_name(op_name)

    def __str__(self):
        if not self:
            return "SubGraphView: empty"

        def block(title, items, name):
            if not items:
                return [f"** {title}: empty"]
            return [f"** {title}[{len(items)}]:"] + [name(x) for x in items]

        def tensor(t):
            return f"{t.name} *" if t in self._passthrough_ts else t.name

        lines = [f"SubGraphView (graphid={id(self.graph)}):"]
        lines += block("ops", self._ops, lambda op: op.name)
        lines += block("inputs", self._input_ts, tensor)
        lines += block("outputs", self._output_ts, tensor)
        return "\n".join(lines) + "\n"

    @property
    def graph(self):
        return self._graph

    @property
    def ops(self) -> list:
        return self._ops

    @property
    def inputs(self) -> util.ListView:
        return util.ListView(self._input_ts)

    @property
    def connected_inputs(self) -> list:
        return [t for t in self._input_ts if t not in self._passthrough_ts]

    @property
    def outputs(self) -> util.ListView:
        return util.ListView(self._output_ts)

    @property
    def connected_outputs(self) -> list:
        return [t for t in self._output_ts if t not in self._passthrough_ts]

    @property
    def passthroughs(self) -> util.ListView:
        return util.ListView(self._passthrough_ts)

    def __bool__(self):
        return self._graph is not None

    def op(self, op_id: int):
        return self._ops[op_id]

    def is_passthrough(self, t) -> bool:
        return t in self._passthrough_ts

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        pass

    def input_index(self, t) -> int:
        if t not in self._input_ts:
            raise ValueError(f"Can't find {t.name} in inputs of subgraph.")
        return self._input_ts.index(t)

    def output_index(self, t) -> int:
        if t not in self._output_ts:
            raise ValueError(f"Can't find {t.name} in outputs of subgraph.")
        return self._output_ts.index(t)

    def consumers(self) -> list:
        """Every op reading one of the view's outputs, each once."""
        res: list = []
        for t in self._output_ts:
            util.concatenate_unique(res, t.consumers())
        return res


def _check_graph(sgv, graph):
    from tensorflow.python.framework import ops as tf_ops

    if not isinstance(sgv, SubGraphView):
        raise TypeError(f"Expected a SubGraphView, got: {type(sgv)}")
    if graph is None or not sgv.graph:
        return sgv
    if not isinstance(graph, tf_ops.Graph):
        raise TypeError(f"Expected a tf.Graph, got: {type(graph)}")
    if sgv.graph is not graph:
        raise ValueError("Graph mismatch.")
    return sgv


def make_view(*args, **kwargs) -> SubGraphView:
    """A view of the ops (regexes with ``graph=``, ops, lists of them) and
    passthrough tensors given; a view given alone is returned as it is."""
    graph = kwargs.get("graph")
    if len(args) == 1 and isinstance(args[0], SubGraphView):
        return _check_graph(args[0], graph)
    ops, ts = select.select_ops_and_ts(*args, **kwargs)
    return _check_graph(SubGraphView(ops, ts), graph)


def make_view_from_scope(scope: str, graph) -> SubGraphView:
    """A view of the ops under a name scope."""
    return SubGraphView(select.get_name_scope_ops(graph, scope))
