"""``tf.parse_single_sequence_example`` as TF 1.15 built it, under ``--v1_seeds``.

TF 1.15 parsed one ``SequenceExample`` with the ``ParseSingleSequenceExample``
op, its keys, defaults and debug name as constants (6 ops for im2txt's image
and caption); TensorFlow 2.21 checks the rank first and runs
``ParseSequenceExampleV2`` (10 ops for the same call, more from a reader's
queue). A graph-seeded program that parses before it builds its model (the
im2txt input pipeline parses twice) then gives every weight another seed
(_v1_seeds.py). TensorFlow 2.21 still registers TF 1.15's op, so in a graph
this builds it again, with the same outputs; ragged features, which TF 1.15
did not have, and eager code take TF 2's.
"""

from __future__ import annotations

from typing import Callable


def parse_single_sequence_example(original: Callable) -> Callable:
    """``original`` (TF 2's function), building TF 1.15's op in a graph."""
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import parsing_config as config

    def parse(
        serialized, context_features=None, sequence_features=None, example_name=None, name=None
    ):
        features = list((context_features or {}).values())
        features += list((sequence_features or {}).values())
        graph = not ops.executing_eagerly_outside_functions()
        if not graph or not features or any(isinstance(f, config.RaggedFeature) for f in features):
            return original(serialized, context_features, sequence_features, example_name, name)
        context = config._ParseOpParams.from_features(
            context_features, [config.VarLenFeature, config.FixedLenFeature]
        )
        steps = config._ParseOpParams.from_features(
            sequence_features, [config.VarLenFeature, config.FixedLenSequenceFeature]
        )
        with ops.name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
            return _tf1_op(serialized, context, steps, example_name, name)

    return parse


def _tf1_op(serialized, context, steps, example_name, name):
    """``ParseSingleSequenceExample`` and its outputs as TF 1.15's dicts."""
    from tensorflow.python.framework import sparse_tensor
    from tensorflow.python.ops import gen_parsing_ops

    missing = []  # TF 1.15 took a default only as "allow_missing": an empty list
    for key, value in steps.dense_defaults.items():
        if value is not None:
            raise ValueError(f"Value feature_list_dense_defaults[{key}] must be None")
        missing.append(key)
    outputs = gen_parsing_ops.parse_single_sequence_example(
        serialized=serialized,
        feature_list_dense_missing_assumed_empty=missing,
        context_sparse_keys=context.sparse_keys,
        context_dense_keys=context.dense_keys,
        feature_list_sparse_keys=steps.sparse_keys,
        feature_list_dense_keys=steps.dense_keys,
        context_dense_defaults=context.dense_defaults_vec,
        debug_name="" if example_name is None else example_name,
        context_sparse_types=context.sparse_types,
        feature_list_dense_types=steps.dense_types,
        context_dense_shapes=context.dense_shapes_as_proto,
        feature_list_sparse_types=steps.sparse_types,
        feature_list_dense_shapes=steps.dense_shapes_as_proto,
        name=name,
    )
    c_indices, c_values, c_shapes, c_dense, s_indices, s_values, s_shapes, s_dense = outputs
    c_sparse = [sparse_tensor.SparseTensor(*t) for t in zip(c_indices, c_values, c_shapes)]
    s_sparse = [sparse_tensor.SparseTensor(*t) for t in zip(s_indices, s_values, s_shapes)]
    return (
        dict(zip(context.sparse_keys + context.dense_keys, c_sparse + list(c_dense))),
        dict(zip(steps.sparse_keys + steps.dense_keys, s_sparse + list(s_dense))),
    )


def parse_single_example(original: Callable) -> Callable:
    """``tf.parse_single_example`` as TF 1.15 built it: the ``ParseSingleExample``
    op with one default constant per dense feature (3 ops for one feature);
    TensorFlow 2.21 builds ``ParseExampleV2`` with constants for its names and
    key lists (7 ops for the same call). In a ``dataset.map`` parser the ops
    before a graph-seeded ``tf.random_shuffle`` (XLNet's permutations) moved
    its seed. Outputs are the same; ragged features and eager code take TF 2's."""
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import parsing_config as config

    def parse(serialized, features, name=None, example_names=None):
        graph = not ops.executing_eagerly_outside_functions()
        if (
            not graph
            or not features
            or example_names is not None
            or not all(isinstance(f, (config.VarLenFeature, config.FixedLenFeature))
                       for f in features.values())
        ):  # fmt: skip
            return original(serialized, features, name=name, example_names=example_names)
        params = config._ParseOpParams.from_features(
            features, [config.VarLenFeature, config.FixedLenFeature]
        )
        with ops.name_scope(name, "ParseSingleExample", [serialized]):
            serialized = ops.convert_to_tensor(serialized, name="serialized")
            return _tf1_single_example(serialized, params, name)

    return parse


def _tf1_single_example(serialized, params, name):
    """``ParseSingleExample`` and its outputs as TF 1.15's dict."""
    from tensorflow.python.framework import sparse_tensor
    from tensorflow.python.ops import gen_parsing_ops

    outputs = gen_parsing_ops.parse_single_example(
        serialized=serialized,
        dense_defaults=params.dense_defaults_vec,
        num_sparse=len(params.sparse_keys),
        sparse_keys=params.sparse_keys,
        sparse_types=params.sparse_types,
        dense_keys=params.dense_keys,
        dense_shapes=params.dense_shapes_as_proto,
        name=name,
    )
    indices, values, shapes, dense = outputs
    sparse = [sparse_tensor.SparseTensor(*t) for t in zip(indices, values, shapes)]
    return dict(zip(params.sparse_keys + params.dense_keys, sparse + list(dense)))
