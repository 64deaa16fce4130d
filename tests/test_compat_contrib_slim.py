"""tf.contrib.slim, .layers and .framework after tf1_train.compat.install(),
served by tf-slim (tf1_train/compat/_contrib_slim.py).

The names are held to TF 1.15's modules (their docstrings' ``@@`` lists and
``remove_undocumented``'s allowed symbols: nothing else was public), the
objects to tf-slim's own (whose layers the tf-slim tests here already hold
to their numbers), ``embed_sequence`` to its lookup, and a user's model
written on ``tf.contrib.layers`` to training on the towers through the
entry point with every regularizer counted.
"""

import importlib
import sys

import numpy as np
import pytest
import tensorflow as tf
import tf_slim

from tests.test_compat_contrib_rnn import train_user_model
from tf1_train.compat import _contrib_slim

v1 = tf.compat.v1

# TF 1.15's tensorflow/contrib/layers/__init__.py: its @@ names and _allowed_symbols.
TF115_LAYERS = """avg_pool2d avg_pool3d batch_norm convolution convolution1d convolution2d
convolution3d conv2d_in_plane convolution2d_in_plane conv2d_transpose convolution2d_transpose
conv3d_transpose convolution3d_transpose dense_to_sparse dropout elu embedding_lookup_unique
flatten fully_connected GDN gdn images_to_sequence layer_norm linear max_pool2d max_pool3d
one_hot_encoding relu relu6 repeat recompute_grad RevBlock rev_block
safe_embedding_lookup_sparse scale_gradient separable_conv2d separable_convolution2d
sequence_to_images softmax spatial_softmax stack unit_norm bow_encoder embed_sequence maxout
apply_regularization l1_l2_regularizer l1_regularizer l2_regularizer sum_regularizer
xavier_initializer xavier_initializer_conv2d variance_scaling_initializer optimize_loss
summarize_activation summarize_tensor summarize_tensors summarize_collection
summarize_activations bucketized_column check_feature_columns create_feature_spec_for_parsing
crossed_column embedding_column scattered_embedding_column input_from_feature_columns
transform_features joint_weighted_sum_from_feature_columns
make_place_holder_tensors_for_base_features multi_class_target one_hot_column
parse_feature_columns_from_examples parse_feature_columns_from_sequence_examples
real_valued_column shared_embedding_columns sparse_column_with_hash_bucket
sparse_column_with_integerized_feature sparse_column_with_keys
sparse_column_with_vocabulary_file weighted_sparse_column weighted_sum_from_feature_columns
infer_real_valued_columns sequence_input_from_feature_columns group_norm instance_norm
bias_add conv1d conv2d conv3d feature_column legacy_fully_connected legacy_linear legacy_relu
OPTIMIZER_CLS_NAMES OPTIMIZER_SUMMARIES regression_target
SPARSE_FEATURE_CROSS_DEFAULT_HASH_KEY summaries""".split()
# TF 1.15's tensorflow/contrib/framework/__init__.py: its @@ names and nest.
TF115_FRAMEWORK = """assert_same_float_dtype assert_scalar assert_scalar_int
convert_to_tensor_or_sparse_tensor get_graph_from_inputs is_numeric_tensor is_non_decreasing
is_strictly_increasing is_tensor reduce_sum_n remove_squeezable_dimensions with_shape
with_same_shape deprecated deprecated_args deprecated_arg_values arg_scope add_arg_scope
current_arg_scope has_arg_scope arg_scoped_arguments prepend_name_scope strip_name_scope
add_model_variable assert_global_step assert_or_get_global_step assign_from_checkpoint
assign_from_checkpoint_fn assign_from_values assign_from_values_fn create_global_step
filter_variables fuse_op get_global_step get_or_create_global_step get_local_variables
get_model_variables get_name_scope get_trainable_variables get_unique_variable
get_variables_by_name get_variables_by_suffix get_variable_full_name
get_variables_to_restore get_variables global_variable local_variable model_variable variable
VariableDeviceChooser convolutional_delta_orthogonal convolutional_orthogonal_1d
convolutional_orthogonal_2d convolutional_orthogonal_3d zero_initializer load_checkpoint
list_variables load_variable init_from_checkpoint load_and_remap_matrix_initializer
load_embedding_initializer load_linear_multiclass_bias_initializer
load_variable_slot_initializer argsort py_func sort get_placeholders smart_cond
smart_constant_value smart_case CriticalSection BoundedTensorSpec TensorSpec RecordInput
nest""".split()


@pytest.mark.parametrize(
    "name, tf115, source",
    [
        ("layers", TF115_LAYERS, lambda: sys.modules["tf_slim.layers"]),
        ("framework", TF115_FRAMEWORK, lambda: tf_slim),
    ],
)
def test_each_tf_1_15_name_is_tf_slims_object_or_one_line(installed, name, tf115, source):
    module = getattr(v1.contrib, name)
    assert importlib.import_module(f"tensorflow.contrib.{name}") is module
    served, refused = [], []
    for attribute in tf115:
        if hasattr(source(), attribute):  # nothing tf-slim keeps is left out
            assert getattr(module, attribute) is getattr(source(), attribute), attribute
            served.append(attribute)
        elif attribute in _contrib_slim.LAYERS_OWN or attribute == "nest":
            served.append(attribute)
        elif name == "framework" and attribute in _contrib_slim.FRAMEWORK_FROM_TF:
            path, original = _contrib_slim.FRAMEWORK_FROM_TF[attribute]
            assert getattr(module, attribute) is getattr(importlib.import_module(path), original)
            served.append(attribute)
        else:
            with pytest.raises(AttributeError, match=f"{attribute} is not in tf-slim.*went"):
                getattr(module, attribute)
            refused.append(attribute)
    # `python`: the package level of contrib's layout, once imported (Finder)
    public = sorted(n for n in vars(module) if not n.startswith("_") and n != "python")
    assert public == sorted(served)  # and nothing TF 1.15 did not have
    assert len(served) == {"layers": 69, "framework": 60}[name], (len(served), len(refused))


# TF 1.15's tensorflow/contrib/framework/__init__.py: _nest_allowed_symbols.
TF115_NEST = """assert_same_structure is_nested is_sequence is_sequence_or_composite flatten
flatten_dict_items pack_sequence_as map_structure map_structure_with_paths
map_structure_with_tuple_paths assert_shallow_structure flatten_up_to
flatten_with_tuple_paths_up_to map_structure_up_to map_structure_with_tuple_paths_up_to
get_traverse_shallow_structure yield_flat_paths flatten_with_joined_string_paths
flatten_with_tuple_paths""".split()


def test_frameworks_nest_is_tensorflows_under_tf_1_15s_names(installed):
    # IMPALA-style code: `nest = tf.contrib.framework.nest`
    from tensorflow.contrib.framework import nest
    from tensorflow.python.util import nest as tensorflows

    assert nest is v1.contrib.framework.nest
    assert sorted(n for n in vars(nest) if not n.startswith("_")) == sorted(TF115_NEST)
    for name in TF115_NEST:
        original = "is_nested" if name == "is_sequence" else name  # renamed since
        assert getattr(nest, name) is getattr(tensorflows, original)
    assert nest.is_sequence((1, [2])) and not nest.is_sequence("ab")
    state = {"c": tf.zeros([2]), "h": (tf.ones([1]), tf.ones([3]))}
    flat = nest.flatten(state)
    assert [t.shape[0] for t in flat] == [2, 1, 3]
    assert nest.pack_sequence_as(state, flat)["h"][1] is flat[2]


def test_slim_is_tf_slim_and_its_nets_import_once(installed):
    from tensorflow.contrib.slim.nets import resnet_v1  # the fine-tuning scripts' line

    assert v1.contrib.slim is tf_slim and tf.contrib.slim is tf_slim
    assert resnet_v1 is importlib.import_module("tf_slim.nets.resnet_v1")
    vgg = importlib.import_module("tensorflow.contrib.slim.nets.vgg")
    assert vgg is importlib.import_module("tf_slim.nets.vgg")  # not a second copy
    assert sys.modules["tensorflow.contrib.slim.nets"] is importlib.import_module("tf_slim.nets")


def test_contribs_implementation_modules_are_tf_slims(installed):
    # tf-faster-rcnn and its forks: the modules under contrib's python/ levels
    names = {}
    exec(
        "from tensorflow.contrib.slim.python.slim.nets import resnet_utils, resnet_v1\n"
        "from tensorflow.contrib.layers.python.layers import layers as layers_lib, utils\n"
        "from tensorflow.contrib.framework.python.ops import arg_scope, add_arg_scope\n"
        "import tensorflow.compat.v1.contrib.slim.python.slim.nets.vgg as vgg\n",
        names,
    )
    for name, module in [
        ("resnet_v1", "tf_slim.nets.resnet_v1"),
        ("vgg", "tf_slim.nets.vgg"),
        ("resnet_utils", "tf_slim.nets.resnet_utils"),
        ("layers_lib", "tf_slim.layers.layers"),
        ("utils", "tf_slim.layers.utils"),
    ]:
        assert names[name] is importlib.import_module(module), name  # fmt: skip
    assert (
        names["arg_scope"] is tf_slim.arg_scope and names["add_arg_scope"] is tf_slim.add_arg_scope
    )
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorflow.contrib.layers.python.nothing")


IDS = np.array([[1, 2, 1, 4], [0, 4, 4, 4]], np.int32)


@pytest.mark.parametrize("unique", [False, True])
def test_embed_sequence_looks_up_a_model_variable_on_tf1s_name(installed, unique):
    with tf.Graph().as_default():
        ids = tf.constant(IDS)
        out = v1.contrib.layers.embed_sequence(
            ids, 5, 3, unique=unique, regularizer=lambda w: tf.reduce_sum(w), scope="enc"
        )
        again = v1.contrib.layers.embed_sequence(ids, scope="enc", reuse=True)  # the decoder
        (table,) = v1.get_collection(v1.GraphKeys.MODEL_VARIABLES)
        assert table.op.name == "enc/embeddings" and v1.trainable_variables() == [table]
        assert len(v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)) == 1
        assert out.shape.as_list() == [2, 4, 3]
        ops = {op.type for op in v1.get_default_graph().get_operations()}
        assert ("Unique" in ops) is unique
        upstream = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
        (grad,) = tf.gradients(out, [table], grad_ys=upstream)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            w, got, shared, g = sess.run([table, out, again, tf.convert_to_tensor(grad)])
    np.testing.assert_array_equal(got, w[IDS])
    np.testing.assert_array_equal(shared, w[IDS])
    want = np.zeros_like(w)
    np.add.at(want, IDS, upstream)
    np.testing.assert_allclose(g, want, rtol=0, atol=1e-6)


def test_embed_sequence_keeps_tf1s_checks_and_default_scope(installed):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Must specify vocab size and embedding dimension"):
            v1.contrib.layers.embed_sequence(tf.constant(IDS), vocab_size=5)
        v1.contrib.layers.embed_sequence(tf.constant(IDS), 5, 3)
        v1.contrib.layers.embed_sequence(tf.constant(IDS), 5, 3)
        names = [v.op.name for v in v1.global_variables()]
    assert names == ["EmbedSequence/embeddings", "EmbedSequence_1/embeddings"]


def test_without_tf_slim_contrib_layers_is_one_line_and_slim_stays_missing(installed, monkeypatch):
    monkeypatch.setattr(_contrib_slim, "available", lambda: False)
    with pytest.raises(AttributeError, match="pip install tf-slim"):
        v1.contrib.layers  # noqa: B018
    with pytest.raises(ModuleNotFoundError):  # try/except ImportError fallbacks fall back
        importlib.import_module("tensorflow.contrib.slim")


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_a_users_contrib_layers_model_trains_on_the_towers_with_its_regularizers(tmp_path, mode):
    out, summary = train_user_model(tmp_path, "contrib_layers", "build", mode, steps=30)
    reader = tf.train.load_checkpoint(str(tmp_path))
    # l2_regularizer on the conv and both dense weights: each counted once per tower
    assert "+ 3 REGULARIZATION_LOSSES term(s)" in out, out
    assert summary["final_loss"] < 1.5  # from ln(10) = 2.30
    shapes = reader.get_variable_to_shape_map()
    model = sorted(k for k in shapes if "Adam" not in k and k.split("/")[0] in (
        "Conv", "fully_connected", "fully_connected_1"))  # fmt: skip
    assert model == [
        "Conv/BatchNorm/beta",
        "Conv/BatchNorm/moving_mean",
        "Conv/BatchNorm/moving_variance",
        "Conv/weights",
        "fully_connected/biases",
        "fully_connected/weights",
        "fully_connected_1/biases",
        "fully_connected_1/weights",
    ]  # fmt: skip  (TF1's contrib.layers names, one copy whatever the mode)
    assert np.max(np.abs(reader.get_tensor("Conv/BatchNorm/moving_mean"))) > 1e-3  # it moved


def test_a_users_embed_sequence_model_trains(tmp_path):
    _, summary = train_user_model(tmp_path, "contrib_layers", "sequence", "parameter_server", 30)
    assert summary["final_loss"] < 2.0
    shapes = tf.train.load_checkpoint(str(tmp_path)).get_variable_to_shape_map()
    assert shapes["EmbedSequence/embeddings"] == [16, 6]
