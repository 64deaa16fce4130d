"""tf.contrib.graph_editor after tf1_train.compat.install(): util, select and
the subgraph view (reroute, edit and transform are in
test_compat_graph_editor_edit.py).

TF 1.15's graph editor went with tf.contrib in TF 2.0; programs that cut,
copy or rewire their graphs with it stopped importing. tf1_train.compat serves
it again as ``tensorflow.contrib.graph_editor``. These tests pin what TF
1.15's own tests (tensorflow/contrib/graph_editor/tests/*_test.py) pinned, on
the same small graphs and with the same counts, names and order, asserted
here by name rather than by count where the names say more.
"""

import collections
import copy
import importlib
import types

import numpy as np
import pytest
import tensorflow as tf

v1 = tf.compat.v1
MODULES = ("util", "select", "subgraph", "reroute", "edit", "transform")
BAR = ["foo/bar/e", "foo/bar/f", "foo/bar/g", "foo/bar/h"]  # scoped_graph()'s ops
FOO = ["foo/b", "foo/c", "foo/d", *BAR]


@pytest.fixture
def ge(installed):
    import tensorflow.contrib.graph_editor as graph_editor  # as a user's program does

    return graph_editor


def scoped_graph():
    """TF 1.15's: a; foo/{b, c=a+b, d}; foo/bar/{e=c+d, f=c+d, g=c+a, h=f+g after c}."""
    with tf.Graph().as_default() as graph:
        a = tf.constant([1.0, 1.0], shape=[2], name="a")
        with tf.name_scope("foo"):
            b = tf.constant([2.0, 2.0], shape=[2], name="b")
            c = tf.add(a, b, name="c")
            d = tf.constant([3.0, 3.0], shape=[2], name="d")
            with tf.name_scope("bar"):
                e = tf.add(c, d, name="e")
                f = tf.add(c, d, name="f")
                g = tf.add(c, a, name="g")
                with tf.control_dependencies([c.op]):
                    h = tf.add(f, g, name="h")
    s = types.SimpleNamespace(graph=graph, a=a, b=b, c=c, d=d, e=e, f=f, g=g, h=h)
    s.ops = lambda letters: {getattr(s, x).op for x in letters}  # s.ops("ab"): {a.op, b.op}
    return s


def names(items):
    return [x.name for x in items]


def test_install_serves_the_package_and_its_modules(ge):
    assert tf.contrib.graph_editor is ge and v1.contrib.graph_editor is ge
    from tensorflow.contrib.graph_editor import subgraph

    assert subgraph.SubGraphView is ge.SubGraphView
    for name in MODULES:
        module = importlib.import_module(f"tensorflow.contrib.graph_editor.{name}")
        assert module is getattr(ge, name), name
    assert ge.sgv is ge.make_view and ge.sgv_scope is ge.make_view_from_scope
    assert ge.ph is ge.make_placeholder_from_dtype_and_shape
    assert ge.select_ops is ge.select.select_ops and ge.Transformer is ge.transform.Transformer


def test_list_view_iterable_and_unique_graph(ge):
    view = ge.util.ListView([0, 1, 2])
    assert len(view) == 3 and list(view) == [0, 1, 2] and view[2] == 2
    with pytest.raises(TypeError):
        view[0] = 5
    with tf.Graph().as_default() as g0:
        a0, b0 = tf.constant(1), tf.constant([1.0, 2.0])
    with tf.Graph().as_default():
        a1 = tf.constant(1)
    assert ge.util.is_iterable([0, 1]) and not ge.util.is_iterable(3)
    # A tensor is a leaf, never a sequence: not even a vector, out of its graph.
    assert not ge.util.is_iterable(a0) and not ge.util.is_iterable(b0)
    assert ge.util.check_graphs(a0, b0) is None
    with pytest.raises(ValueError):
        ge.util.check_graphs(a0, b0, a1)
    assert ge.util.get_unique_graph([a0, b0]) is g0
    with pytest.raises(ValueError):
        ge.util.get_unique_graph([a0, a1])


def test_make_list_of_op_and_of_t(ge):
    with tf.Graph().as_default() as g0:
        a0, b0 = tf.constant(1, name="a0"), tf.constant(2, name="b0")
        c0 = tf.add(a0, b0, name="c0")
    assert names(ge.make_list_of_op(g0)) == ["a0", "b0", "c0"]
    assert ge.util.make_list_of_op((a0.op, b0.op)) == [a0.op, b0.op]
    assert ge.make_list_of_op(c0.op) == [c0.op]
    assert ge.make_list_of_op([a0, b0.op], ignore_ts=True) == [b0.op]
    with pytest.raises(TypeError):
        ge.make_list_of_op([a0, b0.op])
    with pytest.raises(TypeError):
        ge.make_list_of_op(g0, allow_graph=False)
    assert names(ge.make_list_of_t(g0)) == ["a0:0", "b0:0", "c0:0"]
    assert ge.util.make_list_of_t((a0, b0)) == [a0, b0]
    assert ge.make_list_of_t(c0) == [c0]
    assert ge.make_list_of_t((a0, a0.op, b0), ignore_ops=True) == [a0, b0]
    with pytest.raises(TypeError):
        ge.make_list_of_t((a0, a0.op))


def test_generating_and_consuming_ops(ge):
    with tf.Graph().as_default():
        a0, b0 = tf.constant(1), tf.constant(2)
        d0 = tf.add(tf.add(a0, b0), a0)
    c0 = d0.op.inputs[0]
    assert ge.get_generating_ops([a0, b0]) == [a0.op, b0.op]
    assert ge.util.get_generating_ops([c0]) == [c0.op]
    consumers = ge.get_consuming_ops([a0, b0])  # c0 reads both: listed once
    assert len(consumers) == 2 and set(consumers) == {c0.op, d0.op}
    assert ge.get_consuming_ops([d0]) == []


def test_control_outputs_follow_the_graph(ge):
    with tf.Graph().as_default() as g0:
        a0, x0 = tf.constant(1), tf.constant(3)
        with tf.control_dependencies([x0.op]):
            c0 = tf.add(a0, a0)
    control_outputs = ge.ControlOutputs(g0)
    assert control_outputs.graph is g0
    assert control_outputs.get_all() == {x0.op: [c0.op]}
    assert list(control_outputs.get(x0.op)) == [c0.op] and list(control_outputs.get(a0.op)) == []
    with g0.as_default(), tf.control_dependencies([x0.op]):
        d0 = tf.identity(a0)
    assert list(control_outputs.update().get(x0.op)) == [c0.op, d0.op]
    with pytest.raises(TypeError):
        ge.ControlOutputs([c0.op])


def test_flatten_and_transform_tree_keep_the_structure(ge):
    pair = collections.namedtuple("Pair", ["x", "y"])
    tree = {"a": [1, (2, 3)], "b": pair(4, 5), "c": collections.OrderedDict(z=6)}
    assert ge.util.flatten_tree(tree) == [1, 2, 3, 4, 5, 6]
    out = ge.util.transform_tree(tree, lambda leaf: leaf * 10)
    assert out == {"a": [10, (20, 30)], "b": pair(40, 50), "c": {"z": 60}}
    assert isinstance(out["b"], pair) and isinstance(out["c"], collections.OrderedDict)
    assert isinstance(out["a"], list) and isinstance(out["a"][1], tuple)
    with tf.Graph().as_default():
        a0 = tf.constant([1.0, 2.0])
    assert ge.util.flatten_tree([a0, (a0,)]) == [a0, a0]  # tensors are leaves


@pytest.mark.parametrize(
    "scope, want",
    [(None, "geph__foo_0"), ("s/", "s/geph__foo_0"), ("s", "s/geph__foo_0"), ("", "geph__foo_0")],
)
def test_placeholder_name_of_a_tensor(ge, scope, want):
    with tf.Graph().as_default():
        foo = tf.constant(1, name="foo")
        with tf.name_scope("in"):
            scoped = tf.constant(1, name="foo")
    assert ge.placeholder_name(foo, scope=scope) == want
    kept = "in/" + want if scope is None else want  # None keeps the tensor's scope
    assert ge.util.placeholder_name(scoped, scope=scope) == kept


def test_placeholder_names_and_scope_helpers(ge):
    assert ge.placeholder_name() == "geph" and ge.placeholder_name(None) == "geph"
    assert ge.placeholder_name(None, scope="s") == "s/geph" == ge.placeholder_name(scope="s/")
    with tf.Graph().as_default():
        already = v1.placeholder(tf.float32, name="geph__x_0")
    assert ge.placeholder_name(already) == "geph__x_0"  # not geph__geph__x_0_0
    with pytest.raises(TypeError):
        ge.placeholder_name(already.op)
    assert ge.util.scope_finalize("foo/bar") == "foo/bar/" and ge.util.scope_finalize("") == ""
    assert ge.util.scope_dirname("foo/bar/op") == "foo/bar/" and ge.util.scope_dirname("op") == ""
    assert ge.util.scope_basename("foo/bar/op") == "op"


def test_placeholders_are_made_and_fed(ge):
    with tf.Graph().as_default() as graph:
        a0 = tf.constant([1.0, 2.0], name="a0")
        p0 = ge.make_placeholder_from_tensor(a0)
        p1 = ge.ph(tf.float32)
        p2 = ge.util.make_placeholder_from_dtype_and_shape(tf.int32, shape=[3], scope="s")
        total = tf.add(p0, p1)
    assert (p0.op.name, p1.op.name, p2.op.name) == ("geph__a0_0", "geph", "s/geph")
    assert p0.op.type == "Placeholder" and p0.dtype == tf.float32
    assert p0.shape.as_list() == [2] and p1.shape.rank is None and p2.shape.as_list() == [3]
    assert total.op.inputs[0].op.name == "geph__a0_0" and total.op.inputs[1].op.name == "geph"
    with v1.Session(graph=graph) as sess:
        out = sess.run(total, {p0: [1.0, 2.0], p1: [10.0, 20.0]})
    np.testing.assert_allclose(out, [11.0, 22.0])


def test_filters_by_predicate_regex_and_scope(ge):
    s = scoped_graph()
    assert len(ge.filter_ops(s.graph, True)) == 8
    consts = ge.filter_ops(s.graph, lambda op: op.type == "Const")
    assert names(consts) == ["a", "foo/b", "foo/d"]
    assert len(ge.select.filter_ops(s.graph, lambda op: op.type.startswith("Add"))) == 5
    assert names(ge.filter_ops_from_regex(s.graph, r"^.*\b[abc]$")) == ["a", "foo/b", "foo/c"]
    assert len(ge.filter_ts(s.graph, True)) == 8
    consts = ge.filter_ts(s.graph, lambda t: t.op.type == "Const")
    assert names(consts) == ["a:0", "foo/b:0", "foo/d:0"]
    found = ge.filter_ts_from_regex(s.graph, r"^.*/[fgh]:\d$")
    assert sorted(names(found)) == ["foo/bar/f:0", "foo/bar/g:0", "foo/bar/h:0"]
    assert len(ge.get_name_scope_ops(s.graph, "foo/")) == 7
    assert names(ge.get_name_scope_ops(s.graph, "foo/bar")) == BAR
    assert ge.get_name_scope_ops(s.graph, "foo/ba") == []  # a scope, not a prefix


def test_ops_ios_with_and_without_control_edges(ge):
    s = scoped_graph()
    control_ios = ge.ControlOutputs(s.graph)
    assert set(ge.get_ops_ios(s.h.op)) == {s.f.op, s.g.op}
    assert set(ge.get_ops_ios(s.h.op, control_ios=control_ios)) == {s.f.op, s.g.op, s.c.op}
    around_c = {s.a.op, s.b.op, s.e.op, s.f.op, s.g.op}
    assert set(ge.get_ops_ios(s.c.op)) == around_c
    assert set(ge.get_ops_ios(s.c.op, control_ios=control_ios)) == around_c | {s.h.op}


def test_compute_boundary_ts(ge):
    s = scoped_graph()
    inputs, outputs, inside = ge.compute_boundary_ts(s.g.op)
    assert (list(inputs), list(outputs), list(inside)) == ([s.c, s.a], [s.g], [])
    inputs, outputs, inside = ge.compute_boundary_ts([s.g.op, s.h.op])
    assert (list(inputs), list(outputs), list(inside)) == ([s.c, s.a, s.f], [s.h], [s.g])
    with tf.Graph().as_default():
        a, b = tf.constant(1, name="a"), tf.constant(1, name="b")
        c = tf.add(a, b, name="c")
        _ = a + c  # a is made inside, read inside (c) and outside: inside and output
    inputs, outputs, inside = ge.compute_boundary_ts([a.op, c.op])
    assert (list(inputs), list(outputs), list(inside)) == ([b], [a, c], [a])


def test_within_boundary_ops(ge):
    s = scoped_graph()
    cios = ge.ControlOutputs(s.graph)
    ops = ge.get_within_boundary_ops(s.graph, s.f.op, [s.c.op, s.h.op], False, control_ios=cios)
    assert names(ops) == ["foo/d", "foo/bar/e", "foo/bar/f"]
    ops = ge.get_within_boundary_ops(s.graph, s.h.op, boundary_ops=[s.f.op, s.g.op])
    assert names(ops) == ["foo/bar/f", "foo/bar/g", "foo/bar/h"]
    with pytest.raises(ValueError):
        ge.get_within_boundary_ops(s.graph, s.h.op, boundary_ops=[s.h.op])


def test_forward_walk(ge):
    s = scoped_graph()
    seeds, walk = [s.a.op, s.d.op], ge.get_forward_walk_ops
    within = dict(within_ops=s.ops("abcdefh"))  # not g
    no_e = dict(within_ops_fn=lambda op: op is not s.e.op, **within)
    assert set(walk(seeds, stop_at_ts=[s.f], **no_e)) == s.ops("acdf")
    assert set(walk(seeds, inclusive=False, stop_at_ts=[s.f], **no_e)) == s.ops("cf")
    assert set(walk(seeds, inclusive=False, stop_at_ts=[s.f], **within)) == s.ops("cef")
    assert set(walk(seeds, inclusive=False, **within)) == s.ops("cefh")
    assert set(walk([s.a])) == s.ops("cefgh")  # a tensor: the walk starts at its readers
    # h is reached from c only through its control input.
    assert set(walk(s.c.op, stop_at_ts=[s.e, s.f, s.g])) == s.ops("cefg")
    cos = ge.ControlOutputs(s.graph)
    assert set(walk(s.c.op, stop_at_ts=[s.e, s.f, s.g], control_outputs=cos)) == s.ops("cefgh")


def test_backward_walk(ge):
    s = scoped_graph()
    seeds, walk = [s.h.op], ge.get_backward_walk_ops
    within = dict(within_ops=s.ops("abcdefh"))  # not g
    no_c = dict(within_ops_fn=lambda op: op is not s.c.op, **within)
    assert set(walk(seeds, stop_at_ts=[s.f], **no_c)) == s.ops("h")
    assert walk(seeds, inclusive=False, stop_at_ts=[s.f], **within) == []
    assert set(walk(seeds, **no_c)) == s.ops("dfh")
    assert set(walk(seeds, **within)) == s.ops("abcdfh")
    assert set(walk(s.h)) == s.ops("abcdfgh")  # a tensor: the walk starts at its op
    assert set(walk(s.h.op, stop_at_ts=[s.f, s.g])) == s.ops("h")
    assert set(walk(s.h.op, stop_at_ts=[s.f, s.g], control_inputs=True)) == s.ops("abch")


def test_walks_intersection_and_union(ge):
    s = scoped_graph()
    meet, join = ge.get_walks_intersection_ops, ge.get_walks_union_ops
    assert set(meet([s.c.op], [s.g.op])) == s.ops("cg")
    assert set(meet([s.a.op], [s.f.op])) == s.ops("acf")
    assert meet([s.a.op], [s.f.op], within_ops=s.ops("af")) == []
    assert meet([s.a.op], [s.f.op], within_ops_fn=lambda op: op in s.ops("af")) == []
    union = join([s.f.op], [s.g.op])
    assert len(union) == 6 and set(union) == s.ops("abcfgh")
    assert len(join([s.a.op], [s.f.op])) == 8
    assert set(join([s.a.op], [s.f.op], within_ops=s.ops("acdf"))) == s.ops("acdf")
    acf = s.ops("acf")
    assert set(join([s.a.op], [s.f.op], within_ops_fn=lambda op: op in acf)) == acf


@pytest.mark.parametrize(
    "args, want",
    [
        (("^foo/",), FOO),
        (("^foo/bar/",), BAR),
        (("^foo/bar/", "a"), [*BAR, "a"]),
        (("^foo/bar/h$", "(?#ts)^a"), ["foo/bar/h"]),  # a (?#ts) regex selects no op
    ],
)
def test_select_ops_by_regex(ge, args, want):
    s = scoped_graph()
    assert names(ge.select_ops(*args, graph=s.graph)) == want


def test_select_ops_mixes_ops_filters_and_checks(ge):
    s = scoped_graph()
    assert ge.select_ops(s.c.op, "^foo/bar/h$", graph=s.graph) == [s.c.op, s.h.op]
    assert ge.select_ops([s.a, s.b.op]) == [s.b.op]  # tensors silently left out
    consts = ge.select_ops("^foo/", graph=s.graph, positive_filter=lambda op: op.type == "Const")
    assert names(consts) == ["foo/b", "foo/d"]
    only = ge.select_ops("^foo/", "(?#ops)^a$", graph=s.graph, restrict_ops_regex=True)
    assert names(only) == ["a"]
    with pytest.raises(ValueError):
        ge.select_ops("^foo/")  # a regex needs graph=
    with pytest.raises(ValueError):
        ge.select_ops("^foo/", graph=s.graph, colour="red")
    with pytest.raises(TypeError):
        ge.select_ops("^foo/", graph=s.c.op)


def test_select_ts_and_both(ge):
    s = scoped_graph()
    assert len(ge.select_ts(".*:0", graph=s.graph)) == 8
    bar = ge.select_ts(r".*/bar/\w+:0", graph=s.graph)
    assert sorted(names(bar)) == [name + ":0" for name in BAR]
    assert ge.select_ts([s.a, s.b.op], s.c) == [s.a, s.c]  # ops silently left out
    assert ge.select_ts("(?#ops).*", graph=s.graph) == []
    assert ge.select_ts(".*:0", "(?#ts)^a:", graph=s.graph, restrict_ts_regex=True) == [s.a]
    picked = ge.select_ts(".*:0", graph=s.graph, positive_filter=lambda t: t.op.type == "Const")
    assert sorted(names(picked)) == ["a:0", "foo/b:0", "foo/d:0"]
    ops, ts = ge.select_ops_and_ts("^foo/.*", graph=s.graph)
    assert len(ops) == 7 and ts == []  # only (?#ts) regexes select tensors here
    ops, ts = ge.select_ops_and_ts("^foo/.*", "(?#ts)^foo/bar/.*", graph=s.graph)
    assert len(ops) == 7 and sorted(names(ts)) == sorted(names(bar))
    assert ge.select_ops_and_ts(s.a, s.c.op) == ([s.c.op], [s.a])


def test_views_of_a_graph_of_ops_and_of_a_scope(ge):
    s = scoped_graph()
    whole = ge.sgv(s.graph)
    assert list(whole.outputs) == [s.e, s.h] and list(whole.inputs) == [] and len(whole.ops) == 8
    view = ge.make_view(s.f.op, s.g.op)
    assert list(view.outputs) == [s.f, s.g] and list(view.inputs) == [s.c, s.d, s.a]
    assert view.graph is s.graph and view.ops == [s.f.op, s.g.op]
    bar = [s.e.op, s.f.op, s.g.op, s.h.op]
    assert list(ge.sgv_scope("foo/bar", graph=s.graph).ops) == bar
    assert list(ge.make_view_from_scope("foo/bar/", s.graph).ops) == bar
    assert list(ge.sgv("^foo/bar/[ef]$", graph=s.graph).ops) == [s.e.op, s.f.op]
    assert ge.make_view(view) is view
    with pytest.raises(ValueError):
        ge.make_view(view, graph=tf.Graph())
    passthrough = ge.sgv(s.d)  # a lone tensor goes straight through
    assert passthrough.ops == [] and list(passthrough.inputs) == [s.d] == list(passthrough.outputs)
    assert list(passthrough.passthroughs) == [s.d] and passthrough.is_passthrough(s.d)


def test_remapping_makes_new_views(ge):
    s = scoped_graph()
    view = ge.sgv(s.c.op)
    assert list(view.outputs) == [s.c] and list(view.inputs) == [s.a, s.b]
    fanned = view.remap_outputs_to_consumers()
    assert list(fanned.outputs) == [s.c, s.c, s.c]  # e, f, g read c (h only waits)
    assert list(fanned.remap_outputs_make_unique().outputs) == [s.c]
    empty = view.remap(new_input_indices=[], new_output_indices=[])
    assert (len(empty.inputs), len(empty.outputs), empty.ops) == (0, 0, [s.c.op])
    restored = empty.remap_default()
    assert list(restored.outputs) == [s.c] and list(restored.inputs) == [s.a, s.b]
    assert list(view.remap_inputs([1, 0]).inputs) == [s.b, s.a]
    assert list(view.remap_outputs([0, 0]).outputs) == [s.c, s.c]
    assert list(view.inputs) == [s.a, s.b] and list(view.outputs) == [s.c]  # untouched
    with pytest.raises(ValueError):
        view.remap_inputs([0, 0])  # inputs may not repeat
    with pytest.raises(ValueError):
        view.remap_outputs([1])
    with pytest.raises(TypeError):
        view.inputs[0] = s.d  # the lists are read-only
    view = ge.sgv(s.graph).remap_outputs(new_output_indices=[1])
    assert list(view.outputs) == [s.h] and len(view.ops) == 8
    used = view.remove_unused_ops()
    assert list(used.outputs) == [s.h] and len(used.ops) == 7
    assert s.e.op not in used.ops and len(view.ops) == 8


def test_indices_consumers_and_copies(ge):
    s = scoped_graph()
    view = ge.sgv(s.f.op, s.g.op)
    assert (view.input_index(s.c), view.input_index(s.a), view.output_index(s.g)) == (0, 2, 1)
    assert view.consumers() == [s.h.op]
    assert set(ge.sgv(s.c.op).consumers()) == {s.e.op, s.f.op, s.g.op}
    for twin in (view.copy(), copy.copy(view)):
        assert twin is not view and twin.graph is view.graph
        assert twin.ops == view.ops and list(twin.inputs) == list(view.inputs)
        assert list(twin.outputs) == list(view.outputs)
    assert view.find_op_by_name("foo/bar/g") is s.g.op and view["foo/bar/f"] is s.f.op
    with pytest.raises(ValueError):
        view.find_op_by_name("foo/bar/h")
    with view as same:
        assert same is view
    assert "foo/bar/f" in str(view)
