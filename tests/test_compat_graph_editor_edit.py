"""tf.contrib.graph_editor after tf1_train.compat.install(): reroute, edit and
transform, the parts that change a graph or copy it.

TF 1.15's graph editor went with tf.contrib in TF 2.0; tf1_train.compat
serves it again. These tests pin what TF 1.15's reroute_test, edit_test and
transform_test pinned: which tensors each op reads after the edit (TF's
graph matcher, here the input names), and the values the edited or copied
graph computes in a tf.compat.v1.Session.
"""

import collections
import functools
import types

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2

from tests.test_compat_graph_editor import names, scoped_graph

v1 = tf.compat.v1


@pytest.fixture
def ge(installed):
    import tensorflow.contrib.graph_editor as graph_editor  # as a user's program does

    return graph_editor


def reads(op):
    """The names of the ops whose outputs ``op`` reads, in input order."""
    return [t.op.name for t in op.inputs]


def run(graph, fetches, feed=None):
    with v1.Session(graph=graph) as sess:
        return sess.run(fetches, feed)


def pairs_graph():
    """TF 1.15's reroute graph: c0 = a0 + b0, c1 = a1 + b1 ([2]), c2 = a2 + b2 ([3])."""
    with tf.Graph().as_default() as graph:
        t = {}
        for i, (shape, a, b) in enumerate([([2], 1.0, 2.0), ([2], 3.0, 4.0), ([3], 3.0, 4.0)]):
            t[f"a{i}"] = tf.constant(a, shape=shape, name=f"a{i}")
            t[f"b{i}"] = tf.constant(b, shape=shape, name=f"b{i}")
            t[f"c{i}"] = tf.add(t[f"a{i}"], t[f"b{i}"], name=f"c{i}")
    return types.SimpleNamespace(graph=graph, **t)


def chain_graph():
    """TF 1.15's transform graph: Add_2 = Const_2 + (Const_1 + (Const + Input)), all ones."""
    with tf.Graph().as_default() as graph:
        c0, c1, c2 = (tf.constant(1.0, shape=[10], name="Const") for _ in range(3))
        c0.op._set_attr("_foo", attr_value_pb2.AttrValue(s=b"foo"))
        out = tf.add(c2, tf.add(c1, tf.add(c0, tf.constant(1.0, shape=[10], name="Input"))))
    return graph, out


def test_swap_ts(ge):
    p = pairs_graph()
    assert ge.swap_ts([p.a0, p.b0], [p.a1, p.b1]) == 4  # inputs changed
    assert reads(p.c0.op) == ["a1", "b1"] and reads(p.c1.op) == ["a0", "b0"]
    np.testing.assert_allclose(run(p.graph, [p.c0, p.c1]), [[7.0, 7.0], [3.0, 3.0]])


def test_reroute_ts_one_way_then_back(ge):
    p = pairs_graph()
    assert ge.reroute_ts([p.a0, p.b0], [p.a1, p.b1]) == 2
    assert reads(p.c0.op) == ["a0", "b0"] == reads(p.c1.op)
    assert p.a1.consumers() == [] and p.b1.consumers() == []
    assert ge.reroute.reroute_ts([p.a1, p.b1], [p.a0, p.b0]) == 4
    assert reads(p.c0.op) == ["a1", "b1"] == reads(p.c1.op)
    np.testing.assert_allclose(run(p.graph, [p.c0, p.c1]), [[7.0, 7.0]] * 2)


@pytest.mark.parametrize("which", ["shape", "dtype", "length"])
def test_reroute_refuses_incompatible_tensors(ge, which):
    p = pairs_graph()
    with p.graph.as_default():
        ints = tf.constant([1, 2], name="ints")
    other = {"shape": [p.a2, p.b2], "dtype": [ints, p.b1], "length": [p.a1]}[which]
    with pytest.raises(ValueError):
        ge.reroute_ts([p.a0, p.b0], other)
    assert reads(p.c1.op) == ["a1", "b1"] and reads(p.c2.op) == ["a2", "b2"]


@pytest.mark.parametrize("keyword, moved", [("can_modify", "c1"), ("cannot_modify", "d1")])
def test_reroute_only_where_allowed(ge, keyword, moved):
    p = pairs_graph()
    with p.graph.as_default():
        d1 = tf.multiply(p.a1, 2.0, name="d1")
    assert ge.reroute_ts([p.a0], [p.a1], **{keyword: [p.c1.op]}) == 1
    assert reads(p.c1.op)[0] == ("a0" if moved == "c1" else "a1")
    assert reads(d1.op)[0] == ("a0" if moved == "d1" else "a1")


def test_swap_outputs_of_views_sharing_a_tensor(ge):
    with tf.Graph().as_default() as graph:
        a, b = tf.constant(1.0, shape=[2], name="a"), tf.constant(2.0, shape=[2], name="b")
        c = tf.add(a, b, name="c")
        d = tf.add(a, c, name="d")  # a is an output of (a, b, c) and read inside it
        e, f = tf.constant(10.0, shape=[2], name="e"), tf.constant(20.0, shape=[2], name="f")
        g = tf.add(e, f, name="g")
    ge.swap_outputs(ge.sgv(a.op, b.op, c.op), ge.sgv(e.op, f.op))
    assert reads(g.op) == ["a", "c"] and reads(c.op) == ["a", "b"] and reads(d.op) == ["e", "f"]
    np.testing.assert_allclose(run(graph, [d, g]), [[30.0, 30.0], [4.0, 4.0]])


def test_swap_ios_with_a_repeated_output(ge):
    p = pairs_graph()
    with p.graph.as_default():
        a3 = tf.constant(5.0, shape=[2], name="a3")
    ge.swap_ios(ge.sgv(a3.op).remap_outputs([0, 0]), ge.sgv(p.a0.op, p.a1.op))
    assert reads(p.c0.op) == ["a3", "b0"] and reads(p.c1.op) == ["a3", "b1"]
    np.testing.assert_allclose(run(p.graph, [p.c0, p.c1]), [[7.0, 7.0], [9.0, 9.0]])


def test_swap_and_reroute_inputs(ge):
    p = pairs_graph()
    view0, view1 = ge.swap_inputs(ge.sgv(p.c0.op), ge.sgv(p.c1.op))
    assert reads(p.c0.op) == ["a1", "b1"] and reads(p.c1.op) == ["a0", "b0"]
    assert list(view0.inputs) == [p.a1, p.b1] and list(view1.inputs) == [p.a0, p.b0]
    p = pairs_graph()
    view0, view1 = ge.reroute_inputs(ge.sgv(p.c0.op), ge.sgv(p.c1.op))
    assert reads(p.c0.op) == ["a0", "b0"] == reads(p.c1.op)  # c1 reads c0's inputs
    assert list(view1.inputs) == [p.a0, p.b0]
    np.testing.assert_allclose(run(p.graph, p.c1), [3.0, 3.0])


def test_swap_and_reroute_outputs(ge):
    p = pairs_graph()
    ge.reroute_outputs(ge.sgv(p.a0.op), ge.sgv(p.a1.op))  # a1's readers read a0
    assert reads(p.c0.op) == ["a0", "b0"] and reads(p.c1.op) == ["a0", "b1"]
    assert p.a1.consumers() == []
    np.testing.assert_allclose(run(p.graph, p.c1), [5.0, 5.0])
    p = pairs_graph()
    ge.swap_outputs(ge.sgv(p.b0.op), ge.sgv(p.b1.op))
    assert reads(p.c0.op) == ["a0", "b1"] and reads(p.c1.op) == ["a1", "b0"]


def test_control_inputs_added_and_removed(ge):
    p = pairs_graph()
    ge.add_control_inputs(p.c1.op, [p.c0.op, p.a2.op])
    assert set(p.c1.op.control_inputs) == {p.c0.op, p.a2.op}
    node = {n.name: n for n in p.graph.as_graph_def().node}["c1"]  # what the runtime gets
    assert {"^c0", "^a2"} <= set(node.input)
    assert list(ge.ControlOutputs(p.graph).get(p.c0.op)) == [p.c1.op]
    with pytest.raises(ValueError):
        ge.add_control_inputs(p.c1.op, p.c0.op)  # already one
    ge.remove_control_inputs(p.c1.op, p.c0.op)
    assert p.c1.op.control_inputs == [p.a2.op] and "^c0" not in p.c1.op.node_def.input
    with pytest.raises(ValueError):
        ge.remove_control_inputs(p.c1.op, [p.c0.op])  # not one any more
    with pytest.raises(TypeError):
        ge.add_control_inputs(p.c1, [p.c0.op])  # a tensor, not an op
    np.testing.assert_allclose(run(p.graph, p.c1), [7.0, 7.0])


def test_detach_inputs(ge):
    s = scoped_graph()
    view, placeholders = ge.detach_inputs(ge.sgv(s.e.op))
    assert names(placeholders) == ["foo/geph__c_0:0", "foo/geph__d_0:0"]
    assert list(view.inputs) == placeholders
    assert reads(s.e.op) == ["foo/geph__c_0", "foo/geph__d_0"]
    assert reads(s.f.op) == ["foo/c", "foo/d"]  # outside the view: untouched
    feed = {placeholders[0]: [10.0, 10.0], placeholders[1]: [1.0, 1.0]}
    np.testing.assert_allclose(run(s.graph, [s.e, s.f], feed), [[11.0, 11.0], [6.0, 6.0]])
    ge.detach_inputs(ge.sgv(s.h.op), control_inputs=True)
    assert reads(s.h.op) == ["foo/bar/geph__f_0", "foo/bar/geph__g_0"]
    assert s.h.op.control_inputs == []


def test_detach_outputs(ge):
    s = scoped_graph()
    control_outputs = ge.ControlOutputs(s.graph)
    view, placeholders = ge.detach_outputs(ge.sgv(s.c.op), control_outputs=control_outputs)
    assert names(placeholders) == ["foo/geph__c_0:0"] and placeholders[0].shape.as_list() == [2]
    assert [reads(x.op)[0] for x in (s.e, s.f, s.g)] == ["foo/geph__c_0"] * 3
    assert s.c.consumers() == [] and s.h.op.control_inputs == [] and view.ops == [s.c.op]
    out = run(s.graph, [s.e, s.g], {placeholders[0]: [10.0, 10.0]})
    np.testing.assert_allclose(out, [[13.0, 13.0], [11.0, 11.0]])


def test_detach_both_ends(ge):
    s = scoped_graph()
    view = ge.sgv(s.c.op)
    result, inputs, outputs = ge.detach(view, control_ios=ge.ControlOutputs(s.graph))
    assert result is view
    assert names(inputs) == ["geph__a_0:0", "foo/geph__b_0:0"]
    assert names(outputs) == ["foo/geph__c_0:0"]
    assert reads(s.c.op) == ["geph__a_0", "foo/geph__b_0"]
    assert reads(s.g.op) == ["foo/geph__c_0", "a"] and s.h.op.control_inputs == []


def test_connect(ge):
    s = scoped_graph()
    with s.graph.as_default():
        x = tf.constant([1.0, 1.0], shape=[2], name="x")
        y = tf.constant([2.0, 2.0], shape=[2], name="y")
        z = tf.add(x, y, name="z")
    ge.connect(ge.sgv(x.op, y.op, z.op), ge.sgv(s.e.op).remap_inputs([0]))
    assert reads(s.e.op) == ["z", "foo/d"] and reads(s.f.op) == ["foo/c", "foo/d"]
    np.testing.assert_allclose(run(s.graph, s.e), [6.0, 6.0])


def test_bypass(ge):
    s = scoped_graph()
    view, detached = ge.bypass(ge.sgv(s.f.op).remap_inputs([0]))
    assert names(detached) == ["foo/geph__c_0:0"] and view.ops == [s.f.op]
    assert reads(s.h.op) == ["foo/c", "foo/bar/g"]  # f's reader reads f's input
    assert reads(s.f.op) == ["foo/geph__c_0", "foo/d"]
    np.testing.assert_allclose(run(s.graph, s.h), [7.0, 7.0])


def test_copy_into_another_graph(ge):
    graph, out = chain_graph()
    dst = tf.Graph()
    view, info = ge.copy(graph, dst)
    assert view.graph is dst and len(view.ops) == 7
    assert {op.name for op in dst.get_operations()} == {op.name for op in graph.get_operations()}
    for op in graph.get_operations():
        op_ = info.transformed(op)
        assert op_.graph is dst and op_.name == op.name and info.original(op_) is op
    for t in ge.util.get_tensors(graph):
        t_ = info.transformed(t)
        assert t_.graph is dst and t_.name == t.name and info.original(t_) is t
    assert info.transformed([out, out.op]) == [info.transformed(out), info.transformed(out.op)]
    with tf.Graph().as_default():
        stranger = tf.constant(0.0)
    assert info.transformed(stranger) is None and info.original(stranger) is None
    assert info.transformed(stranger, missing_fn=lambda t: "missing") == "missing"
    np.testing.assert_allclose(run(dst, info.transformed(out)), [4.0] * 10)


def test_copy_into_the_same_graph_under_a_scope(ge):
    graph, out = chain_graph()
    view, info = ge.copy(ge.sgv(out.op), dst_scope="copy")
    assert info.transformed(out).name == "copy/Add_2:0" and view.graph is graph
    # The view's inputs become placeholders in the new scope.
    assert names(view.inputs) == ["copy/geph__Const_2_0:0", "copy/geph__Add_1_0:0"]
    feed = dict(zip(view.inputs, [[2.0] * 10, [3.0] * 10]))
    np.testing.assert_allclose(run(graph, [view.outputs[0], out], feed), [[5.0] * 10, [4.0] * 10])
    _, again = ge.copy(graph, dst_scope="copy")  # the scope is taken: copy_1
    assert again.transformed(out).name == "copy_1/Add_2:0"


def test_copy_with_input_replacements(ge):
    graph, out = chain_graph()
    with graph.as_default():
        ten = tf.constant(10.0, shape=[10], name="Input")
    view, info = ge.copy_with_input_replacements(out.op, {out.op.inputs[1]: ten})
    copied = info.transformed(out.op)
    assert copied.inputs[1] is ten and copied.inputs[0] is out.op.inputs[0]  # Const_2 kept
    np.testing.assert_allclose(run(graph, [view.outputs[0], out]), [[11.0] * 10, [4.0] * 10])


def _replace_graph():
    with tf.Graph().as_default() as graph:
        a = tf.constant(1.0, name="a")
        b = v1.Variable(1.0, name="b")
        c = tf.identity(a + b + tf.constant(0.001, name="eps"), name="c")
        a_new = tf.constant(2.0, name="a_new")
    return graph, a, c, a_new


def test_graph_replace_recomputes_from_the_replacement(ge):
    graph, a, c, a_new = _replace_graph()
    pair = collections.namedtuple("OneTensor", ["t"])
    c_new = ge.graph_replace(c, {a: a_new})
    as_dict = ge.graph_replace({"c": c}, {a: a_new})
    ordered = ge.graph_replace(collections.OrderedDict(c=c), {a: a_new})
    as_pair = ge.graph_replace(pair(c), {a: a_new})
    assert c_new.name != c.name and c_new.graph is graph
    assert isinstance(as_dict, dict) and isinstance(ordered, collections.OrderedDict)
    assert isinstance(as_pair, pair)
    with v1.Session(graph=graph) as sess:
        sess.run(v1.global_variables_initializer())
        out = sess.run([c, c_new, as_dict, ordered, as_pair])
    np.testing.assert_allclose(out[:2], [2.001, 3.001], rtol=1e-6)
    assert out[2]["c"] == pytest.approx(3.001) and out[3]["c"] == pytest.approx(3.001)
    assert out[4].t == pytest.approx(3.001)


def test_graph_replace_keeps_unconnected_targets(ge):
    with tf.Graph().as_default():
        a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
        c = a + 2 * b
        d = tf.constant(2.0, name="d")
    res = ge.graph_replace([b, c], {a: d})
    assert [t.name for t in res] == ["b:0", "add_1:0"] and res[0] is b
    with pytest.raises(ValueError):
        ge.graph_replace(b, {a: d})  # nothing between a and b


def test_graph_replace_through_gradients(ge):
    with tf.Graph().as_default() as graph:
        x = tf.constant(2.0, name="x")
        grad = tf.gradients(x * x * x, x)[0]  # 3 x^2 = 12
    res = ge.graph_replace(grad, {x: grad}, dst_scope="res")
    assert res.name.startswith("res/") and res.name != grad.name
    np.testing.assert_allclose(run(graph, [grad, res]), [12.0, 432.0])  # 3 * 12^2


def test_transformer_with_a_noisy_op_handler(ge):
    graph, out = chain_graph()

    def noisy(info, op, new_inputs):
        op_, outputs_ = ge.transform.copy_op_handler(info, op, new_inputs)
        if not op.name.startswith("Add"):
            return op_, outputs_
        with info.graph_.as_default():
            noise = tf.constant(1.0, shape=[10], name="Noise")
            return op_, [tf.add(noise, op_.outputs[0], name="AddNoise")]

    transformer = ge.Transformer()
    transformer.transform_op_handler = noisy
    dst = tf.Graph()
    _, info = transformer(graph, dst, "", "")
    top = ge.select_ops("^AddNoise_2$", graph=dst)[0]
    assert info.transformed(out).op is top and reads(top) == ["Noise_2", "Add_2"]
    assert reads(dst.get_operation_by_name("Add_2")) == ["Const_2", "AddNoise_1"]
    assert reads(dst.get_operation_by_name("Add")) == ["Const", "Input"]
    np.testing.assert_allclose(
        run(dst, top.outputs[0]), [7.0] * 10
    )  # Add 2, +1; Add_1 4, +1; Add_2 6, +1


def test_transformer_with_an_external_input_handler(ge):
    graph, out = chain_graph()

    def fives(info, t):
        with info.graph_.as_default():
            return tf.constant(5.0, shape=t.shape, name="five")

    transformer = ge.Transformer()
    transformer.transform_external_input_handler = fives
    dst = tf.Graph()
    view, info = transformer(ge.sgv(out.op), dst, "copied")
    assert view.ops[0].name == "copied/Add_2" and reads(view.ops[0]) == ["five", "five_1"]
    assert info.original(info.transformed(out)) is out
    np.testing.assert_allclose(run(dst, info.transformed(out)), [10.0] * 10)


def test_copy_op_handler_with_a_nodedef_fn(ge):
    graph, _ = chain_graph()

    def mark(node_def):
        if "_foo" in node_def.attr:
            del node_def.attr["_foo"]
        node_def.attr["_bar"].s = b"bar"
        return node_def

    transformer = ge.Transformer()
    transformer.transform_op_handler = functools.partial(
        ge.transform.copy_op_handler, nodedef_fn=mark
    )
    dst = tf.Graph()
    transformer(graph, dst, "", "")
    assert graph.get_operation_by_name("Const").get_attr("_foo") == b"foo"
    with pytest.raises(ValueError):
        dst.get_operation_by_name("Const").get_attr("_foo")
    assert [op.get_attr("_bar") for op in dst.get_operations()] == [b"bar"] * 7


def test_copy_keeps_an_assert_and_its_control_edge(ge):
    with tf.Graph().as_default() as graph:
        a, b = tf.constant(1), tf.constant(1)
        eq = tf.equal(a, b)
        assert_op = v1.Assert(eq, [a, b])
        with tf.control_dependencies([assert_op]):
            total = tf.add(a, b)
    _, info = ge.Transformer()(ge.make_view([assert_op, eq.op, a.op, b.op]), graph, "", "")
    copied = info.transformed(assert_op)
    assert copied is not None and copied is not assert_op and copied.type == "Assert"
    assert run(graph, total) == 2


def test_copy_a_cond_into_another_graph(ge):
    with tf.Graph().as_default() as graph:
        choice = v1.placeholder(tf.bool, shape=())
        result = v1.cond(choice, lambda: tf.constant(1), lambda: tf.constant(2))
    dst = tf.Graph()
    _, info = ge.copy(graph, dst_graph=dst, dst_scope="imported")
    copied, copied_choice = info.transformed(result), info.transformed(choice)
    assert copied.graph is dst and copied.name.startswith("imported/")
    assert run(dst, copied, {copied_choice: True}) == 1
    assert run(dst, copied, {copied_choice: False}) == 2


def test_copy_a_while_loop_into_another_graph(ge):
    with tf.Graph().as_default() as graph:
        limit = v1.placeholder(tf.int32, shape=())
        _, total = v1.while_loop(lambda i, _: i <= limit, lambda i, s: (i + 1, s + i), [1, 0])
    dst = tf.Graph()
    _, info = ge.copy(graph, dst_graph=dst, dst_scope="imported")
    assert run(dst, info.transformed(total), {info.transformed(limit): 10}) == 55
