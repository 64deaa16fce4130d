"""``tf.contrib.graph_editor.util`` after install(): lists of ops and
tensors, trees, control outputs and the editor's placeholders.

TF 1.15's graph editor (pure Python over ``tf.Graph``'s internals) went
with ``tf.contrib`` in TensorFlow 2.0. Programs that rewire graphs with it
(OpenAI's gradient checkpointing in every GPT-2 fine-tuner, ``graph_replace``
in meta-learning and hyperparameter-gradient code) stop at their import.
This package is the editor again on TensorFlow 2.21's graphs, with TF 1.15's
names, arguments and results; where TF 1.15 walked sets in no fixed order,
the walks here keep the order they met ops in, so two runs build the same
graph.
"""

from __future__ import annotations

import collections.abc
import re

from tensorflow.python.framework import ops as tf_ops
from tensorflow.python.ops import array_ops

__all__ = [
    "make_list_of_op",
    "get_tensors",
    "make_list_of_t",
    "get_generating_ops",
    "get_consuming_ops",
    "ControlOutputs",
    "placeholder_name",
    "make_placeholder_from_tensor",
    "make_placeholder_from_dtype_and_shape",
]


def concatenate_unique(la: list, lb) -> list:
    """Append to ``la`` the elements of ``lb`` it lacks, in ``lb``'s order."""
    seen = set(la)
    for x in lb:
        if x not in seen:
            la.append(x)
            seen.add(x)
    return la


class ListView:
    """A read-only view of a list (a subgraph view's inputs and outputs)."""

    def __init__(self, list_: list):
        if not isinstance(list_, list):
            raise TypeError(f"Expected a list, got: {type(list_)}.")
        self._list = list_

    def __iter__(self):
        return iter(self._list)

    def __len__(self):
        return len(self._list)

    def __bool__(self):
        return bool(self._list)

    def __getitem__(self, i):
        return self._list[i]

    def __add__(self, other):
        return list(self) + list(other)


def is_iterable(obj) -> bool:
    """Whether ``iter(obj)`` works; a tensor is one leaf (iterating it only
    fails later)."""
    if isinstance(obj, tf_ops.Tensor):
        return False
    try:
        iter(obj)
    except Exception:  # noqa: BLE001 (TF 1.15's test: anything iter() refuses)
        return False
    return True


def flatten_tree(tree, leaves: list | None = None) -> list:
    """The leaves of nested iterables (a dict's values), in order."""
    leaves = [] if leaves is None else leaves
    if isinstance(tree, dict):
        for child in tree.values():
            flatten_tree(child, leaves)
    elif is_iterable(tree) and not isinstance(tree, (str, bytes)):
        for child in tree:
            flatten_tree(child, leaves)
    else:
        leaves.append(tree)
    return leaves


def transform_tree(tree, fn, iterable_type=tuple):
    """``tree`` with ``fn`` applied to each leaf, its containers rebuilt as
    their own types (dicts, named tuples, tuples, lists)."""
    if not is_iterable(tree) or isinstance(tree, (str, bytes)):
        return fn(tree)
    if isinstance(tree, dict):
        return type(tree)((k, transform_tree(v, fn)) for k, v in tree.items())
    if isinstance(tree, tuple):
        if hasattr(tree, "_asdict"):
            return type(tree)(**transform_tree(tree._asdict(), fn))
        return type(tree)(transform_tree(child, fn) for child in tree)
    if isinstance(tree, collections.abc.Sequence):
        return type(tree)(transform_tree(child, fn) for child in tree)
    return iterable_type(transform_tree(child, fn) for child in tree)


def check_graphs(*args) -> None:
    """Raise ValueError unless every argument with a graph has the same one."""
    graph = None
    for i, sgv in enumerate(args):
        if graph is None and sgv.graph is not None:
            graph = sgv.graph
        elif sgv.graph is not None and sgv.graph is not graph:
            raise ValueError(f"Argument[{i}]: Wrong graph!")


def get_unique_graph(tops, check_types=None, none_if_empty: bool = False):
    """The one graph all of ``tops`` (ops and/or tensors) belong to."""
    if isinstance(tops, tf_ops.Graph):
        return tops
    if not is_iterable(tops):
        raise TypeError(f"{type(tops)} is not iterable")
    if check_types is None:
        check_types = (tf_ops.Operation, tf_ops.Tensor)
    elif not is_iterable(check_types):
        check_types = (check_types,)
    graph = None
    for top in tops:
        if not isinstance(top, tuple(check_types)):
            names = ", ".join(str(t) for t in check_types)
            raise TypeError(f"Expected a type in ({names}), got: {type(top)}")
        if graph is None:
            graph = top.graph
        elif graph is not top.graph:
            raise ValueError(f"Operation {top} does not belong to given graph")
    if graph is None and not none_if_empty:
        raise ValueError("Can't find the unique graph of an empty list")
    return graph


def _make_list(xs, kind, all_of_graph, check_graph, allow_graph, ignore_other):
    if isinstance(xs, tf_ops.Graph):
        if allow_graph:
            return all_of_graph(xs)
        raise TypeError("allow_graph is False: cannot convert a tf.Graph.")
    if not is_iterable(xs):
        xs = [xs]
    xs = list(xs)
    if not xs:
        return []
    if check_graph:
        get_unique_graph(xs, check_types=None if ignore_other else kind)
    return [x for x in xs if isinstance(x, kind)]


def make_list_of_op(ops, check_graph=True, allow_graph=True, ignore_ts=False) -> list:
    """A new list of operations from one op, an iterable of ops or a graph
    (all its ops); with ``ignore_ts`` tensors among them are dropped."""
    return _make_list(
        ops, tf_ops.Operation, tf_ops.Graph.get_operations, check_graph, allow_graph, ignore_ts
    )


def get_tensors(graph) -> list:
    """Every output tensor of every op of ``graph``."""
    if not isinstance(graph, tf_ops.Graph):
        raise TypeError(f"Expected a graph, got: {type(graph)}")
    return [t for op in graph.get_operations() for t in op.outputs]


def make_list_of_t(ts, check_graph=True, allow_graph=True, ignore_ops=False) -> list:
    """A new list of tensors from one tensor, an iterable of them or a graph."""
    return _make_list(ts, tf_ops.Tensor, get_tensors, check_graph, allow_graph, ignore_ops)


def get_generating_ops(ts) -> list:
    """The op that produces each tensor of ``ts``."""
    return [t.op for t in make_list_of_t(ts, allow_graph=False)]


def get_consuming_ops(ts) -> list:
    """Every op that reads a tensor of ``ts``, each once."""
    ops: list = []
    for t in make_list_of_t(ts, allow_graph=False):
        concatenate_unique(ops, t.consumers())
    return ops


class ControlOutputs:
    """For each op, the ops that have it as a control input (TensorFlow keeps
    only the other direction); rebuilt when the graph's version moves."""

    def __init__(self, graph):
        if not isinstance(graph, tf_ops.Graph):
            raise TypeError(f"Expected a tf.Graph, got: {type(graph)}")
        self._control_outputs: dict = {}
        self._graph = graph
        self._version = None
        self._build()

    def update(self):
        if self._version != self._graph.version:
            self._build()
        return self

    def _build(self):
        self._control_outputs.clear()
        for op in self._graph.get_operations():
            for control_input in op.control_inputs:
                outputs = self._control_outputs.setdefault(control_input, [])
                if op not in outputs:
                    outputs.append(op)
        self._version = self._graph.version

    def get_all(self) -> dict:
        return self._control_outputs

    def get(self, op):
        return self._control_outputs.get(op, ())

    @property
    def graph(self):
        return self._graph


def scope_finalize(scope: str) -> str:
    return scope + "/" if scope and scope[-1] != "/" else scope


def scope_dirname(scope: str) -> str:
    return scope[: scope.rfind("/") + 1]


def scope_basename(scope: str) -> str:
    return scope[scope.rfind("/") + 1 :]


def placeholder_name(t=None, scope=None, prefix: str = "geph") -> str:
    """``geph__<op>_<index>`` in ``t``'s scope (or ``scope``): the editor's
    placeholders are recognisable by name ("graph editor placeholder")."""
    if scope is not None:
        scope = scope_finalize(scope)
    if t is None:
        return (scope or "") + prefix
    if not isinstance(t, tf_ops.Tensor):
        raise TypeError(f"Expected a tf.Tenfor, got: {type(t)}")
    base = scope_basename(t.op.name)
    if scope is None:
        scope = scope_dirname(t.op.name)
    mine = base.startswith(f"{prefix}__")
    return scope + (base if mine else f"{prefix}__{base}_{t.value_index}")


def make_placeholder_from_tensor(t, scope=None, prefix: str = "geph"):
    """A placeholder of ``t``'s dtype and shape, named by placeholder_name."""
    return array_ops.placeholder(t.dtype, t.shape, name=placeholder_name(t, scope, prefix))


def make_placeholder_from_dtype_and_shape(dtype, shape=None, scope=None, prefix: str = "geph"):
    """A placeholder named ``geph`` (in ``scope``)."""
    return array_ops.placeholder(dtype, shape, name=placeholder_name(scope=scope, prefix=prefix))


_INTERNAL = re.compile(r"^__\w+__$")


def get_predefined_collection_names() -> list:
    """The names of ``tf.GraphKeys``' collections."""
    return [getattr(tf_ops.GraphKeys, k) for k in dir(tf_ops.GraphKeys) if not _INTERNAL.match(k)]


def find_corresponding_elem(target, dst_graph, dst_scope="", src_scope=""):
    """The op or tensor of ``dst_graph`` named as ``target``, ``src_scope``
    swapped for ``dst_scope``."""
    name = target.name
    if src_scope:
        src_scope = scope_finalize(src_scope)
        if not name.startswith(src_scope):
            raise ValueError(f"{name} does not start with {src_scope}")
        name = name[len(src_scope) :]
    name = scope_finalize(dst_scope) + name if dst_scope else name
    if isinstance(target, tf_ops.Tensor):
        return dst_graph.get_tensor_by_name(name)
    if isinstance(target, tf_ops.Operation):
        return dst_graph.get_operation_by_name(name)
    raise TypeError(f"Expected tf.Tensor or tf.Operation, got: {type(target)}")


def find_corresponding(targets, dst_graph, dst_scope="", src_scope=""):
    """find_corresponding_elem over a tree of ops and tensors."""
    return transform_tree(
        targets, lambda t: find_corresponding_elem(t, dst_graph, dst_scope, src_scope)
    )
