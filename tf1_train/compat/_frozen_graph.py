"""A frozen graph TF 1.x can load: default-valued attributes left out.

Freeze scripts (``graph_util.convert_variables_to_constants``: YOLOv3's
``freeze_graph.py``, DeepSpeech's export, facenet's) write a ``GraphDef``
for an inference runtime, often one built on TF 1.x (DeepSpeech's native
client). TensorFlow 2.21 writes every attribute of every node, those it
added since 1.15 too (``exponential_avg_factor`` on ``FusedBatchNormV3``,
``grad_a`` on ``MatMul``), and TF 1.15.5's importer refuses a node with an
attribute its op does not know (``ValueError: NodeDef mentions attr
'exponential_avg_factor' not in Op<name=FusedBatchNormV3...>``). TF 1.x
itself wrote none it did not know. After install() the frozen graph leaves
out each attribute equal to its op's default, as SavedModel's
``strip_default_attrs`` does: any TensorFlow fills those back in on import,
so the graph computes the same on 2.21 and loads on TF 1.15.5 (YOLOv3's
frozen detector: bit-identical predictions there, measured).

A SavedModel (``tf.saved_model.simple_save``, ``SavedModelBuilder``: Spinning
Up's ``logger.setup_tf_saver``, TF Serving exports) is stripped the same way,
and so is each attribute TensorFlow added after 1.15 only as a hint, whatever
its value (``HINTS``): a training graph's gradient ``MatMul`` carries
``grad_b: true``, a resource variable its ``debug_name`` and its assigns
``validate_shape``, which TF 1.15.5's importer refuses as well, and which it
never needed (its ``AssignVariableOp`` always checked the shape). Spinning
Up's ``tf1_save`` written on 2.21 then loads on TF 1.15.5 and computes
the same actions and values (to 2e-7, measured).
"""

import functools

PRIVATE = "tensorflow.python.framework.graph_util.convert_variables_to_constants"


def install(set_attribute, v1_apis) -> None:
    """``convert_variables_to_constants`` that strips, where the v1 API
    (``tf.compat.v1.graph_util``, ``tf.graph_util`` under --v1) and
    TensorFlow's own module hold it."""
    from tensorflow.python.framework import convert_to_constants, graph_util

    original = convert_to_constants.convert_variables_to_constants
    stripped = _stripping(getattr(original, "_tf1_train_original", original))
    set_attribute(convert_to_constants, "convert_variables_to_constants", stripped)
    # TF 1.x's own path, gone from 2.21's private graph_util (TF 1.x's
    # image_retraining/retrain.py and its copies, freeze scripts): PRIVATE
    set_attribute(graph_util, "convert_variables_to_constants", stripped)
    for api in v1_apis:
        set_attribute(api.graph_util, "convert_variables_to_constants", stripped)
    from tensorflow.python.saved_model import builder_impl

    builder = builder_impl._SavedModelBuilder  # SavedModelBuilder's base: every meta graph
    tag = builder._tag_and_add_meta_graph
    set_attribute(builder, "_tag_and_add_meta_graph", _stripping_meta_graph(tag))


# attributes TensorFlow added after 1.15 that no kernel computes differently
# without, refused by TF 1.15.5's importer ("NodeDef mentions attr 'grad_a'
# not in Op<name=MatMul...>") whatever their value
HINTS = {
    "MatMul": ("grad_a", "grad_b"),
    "VarHandleOp": ("debug_name",),
    "AssignVariableOp": ("validate_shape",),
}


def _stripping_meta_graph(tag_and_add):
    tag_and_add = getattr(tag_and_add, "_tf1_train_original", tag_and_add)

    @functools.wraps(tag_and_add)
    def _tag_and_add_meta_graph(self, meta_graph_def, tags, signature_def_map):
        _strip_meta_graph(meta_graph_def)
        return tag_and_add(self, meta_graph_def, tags, signature_def_map)

    _tag_and_add_meta_graph._tf1_train_original = tag_and_add
    return _tag_and_add_meta_graph


def _strip_meta_graph(meta) -> None:
    from tensorflow.python.framework import meta_graph

    meta_graph.strip_graph_default_valued_attrs(meta)
    for node in meta.graph_def.node:
        for name in HINTS.get(node.op, ()):
            if name in node.attr:
                del node.attr[name]


def _stripping(convert):
    @functools.wraps(convert)
    def convert_variables_to_constants(*args, **kwargs):
        return strip_default_attributes(convert(*args, **kwargs))

    convert_variables_to_constants._tf1_train_original = convert
    return convert_variables_to_constants


def strip_default_attributes(graph_def):
    """``graph_def`` with every attribute that equals its op's default left out."""
    from tensorflow.core.protobuf import meta_graph_pb2

    meta = meta_graph_pb2.MetaGraphDef()
    meta.graph_def.CopyFrom(graph_def)
    _strip_meta_graph(meta)
    return meta.graph_def
