"""Graphs TF 1.x wrote, imported on TensorFlow 2: ``import_meta_graph`` of a
training graph's ``.meta``, ``import_graph_def`` of its GraphDef.

A ``.meta`` records each node's output shapes (``_output_shapes``), and the
importer checks them against the shapes it infers. For a fused batch norm's
gradient (``FusedBatchNormGrad``, ``V2``, ``V3``: every ``tf.layers``,
tf-slim or Keras batch norm trained in the graph) TF 1.x recorded its two
reserve outputs with the channel count and TensorFlow 2 infers them empty,
so the import stops at "has an _output_shapes attribute inconsistent with
the GraphDef for output #3" (facenet's released models, and every TF1
training checkpoint with batch norm that a program restores through its
``.meta``). Nothing reads those outputs; the recorded shapes are hints. After
install(), the importer drops them on those ops only, and the graph imports,
restores and trains to TF 1.15.5's numbers (tests/test_compat_meta_graph.py).
"""

from tensorflow.core.framework import graph_pb2

BATCH_NORM_GRADIENTS = ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")


def without_tf1_batch_norm_shapes(graph_def):
    """``graph_def``, or a copy without the output shapes recorded on its fused
    batch norm gradients (in the graph and in its functions)."""
    if not isinstance(graph_def, graph_pb2.GraphDef) or not _recorded(graph_def):
        return graph_def
    copy = graph_pb2.GraphDef()
    copy.CopyFrom(graph_def)
    for node in _recorded(copy):
        del node.attr["_output_shapes"]
    return copy


def _recorded(graph_def) -> list:
    nodes = list(graph_def.node)
    nodes += [n for f in graph_def.library.function for n in f.node_def]
    return [n for n in nodes if n.op in BATCH_NORM_GRADIENTS and "_output_shapes" in n.attr]


def importer(import_graph_def_internal):
    """TensorFlow's ``_import_graph_def_internal`` (which ``import_graph_def``,
    ``import_meta_graph`` and the v1 SavedModel loader all reach), given the
    fitted graph."""

    def import_internal(graph_def, *args, **kwargs):
        return import_graph_def_internal(without_tf1_batch_norm_shapes(graph_def), *args, **kwargs)

    return import_internal
