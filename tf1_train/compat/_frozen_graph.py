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


def _stripping(convert):
    @functools.wraps(convert)
    def convert_variables_to_constants(*args, **kwargs):
        return strip_default_attributes(convert(*args, **kwargs))

    convert_variables_to_constants._tf1_train_original = convert
    return convert_variables_to_constants


def strip_default_attributes(graph_def):
    """``graph_def`` with every attribute that equals its op's default left out."""
    from tensorflow.core.protobuf import meta_graph_pb2
    from tensorflow.python.framework import meta_graph

    meta = meta_graph_pb2.MetaGraphDef()
    meta.graph_def.CopyFrom(graph_def)
    meta_graph.strip_graph_default_valued_attrs(meta)
    return meta.graph_def
