"""``tf.contrib.lookup`` and ``tf.contrib.util`` after install().

Text models of the TF 1.x years mapped words to ids with
``tf.contrib.lookup.index_table_from_file`` / ``index_table_from_tensor(mapping=...)``
and back with ``index_to_string``; TF Serving clients built their requests with
``tf.contrib.util.make_tensor_proto``. Both modules went with ``tf.contrib``.

Most of TF 1.15's ``tf.contrib.lookup`` was TensorFlow's own
``lookup_ops`` under a second name, and TensorFlow 2.21 still has every one
of those objects: they are served as they are. The rest were thin
wrappers, rebuilt here on the same core functions: ``index_table_from_tensor``
and ``index_to_string_table_from_tensor`` took the vocabulary as
``mapping=`` (core: ``vocabulary_list=``), ``string_to_index`` and
``index_to_string`` built a table and looked the tensor up in one call, the
``string_to_index_table_from_*`` pair were the index tables for strings,
``HashTable`` took a ``shared_name``, and ``MutableDenseHashTable`` was core's
``DenseHashTable``. ``tf.contrib.util``'s five functions were core's
``tensor_util``/``meta_graph`` functions; its ``loader`` is gone
(``tf.load_op_library``). tests/test_compat_contrib_lookup.py holds them to
TF 1.15.5's outputs.
"""

from __future__ import annotations

from tensorflow.python.framework import dtypes, meta_graph, ops, tensor_util
from tensorflow.python.ops import lookup_ops

CORE = ("FastHashSpec", "HasherSpec", "IdTableWithHashBuckets", "index_table_from_file",
        "index_to_string_table_from_file", "InitializableLookupTableBase",
        "KeyValueTensorInitializer", "LookupInterface", "MutableHashTable", "StrongHashSpec",
        "TableInitializerBase", "TextFileIdTableInitializer", "TextFileIndex",
        "TextFileInitializer", "TextFileStringTableInitializer")  # fmt: skip
OWN = ("HashTable", "MutableDenseHashTable", "index_table_from_tensor",
       "index_to_string_table_from_tensor", "index_to_string", "string_to_index",
       "string_to_index_table_from_file", "string_to_index_table_from_tensor")  # fmt: skip
KEPT = tuple(sorted(CORE + OWN))
UTIL_KEPT = ("constant_value", "make_ndarray", "make_tensor_proto", "ops_used_by_graph_def",
             "stripped_op_list_for_graph")  # fmt: skip


def index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1,
                            hasher_spec=lookup_ops.FastHashSpec, dtype=dtypes.string,
                            name=None):  # fmt: skip
    """Core's, with TF 1.x contrib's ``mapping`` for ``vocabulary_list``."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_table_from_tensor(
        vocabulary_list=mapping, num_oov_buckets=num_oov_buckets, default_value=default_value,
        hasher_spec=hasher_spec, dtype=dtype, name=name,
    )  # fmt: skip


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_to_string_table_from_tensor(
        vocabulary_list=mapping, default_value=default_value, name=name
    )


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """``tensor``'s strings as their indices in ``mapping`` (a table built and used at once)."""
    table = index_table_from_tensor(mapping=mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    table = index_to_string_table_from_tensor(mapping=mapping, default_value=default_value,
                                              name=name)  # fmt: skip
    return table.lookup(tensor)


def string_to_index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                                    default_value=-1, hasher_spec=lookup_ops.FastHashSpec,
                                    name=None):  # fmt: skip
    return lookup_ops.index_table_from_file(
        vocabulary_file, num_oov_buckets, vocab_size, default_value, hasher_spec,
        key_dtype=dtypes.string, name=name,
    )  # fmt: skip


def string_to_index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1,
                                      hasher_spec=lookup_ops.FastHashSpec, name=None):  # fmt: skip
    with ops.name_scope(name, "string_to_index") as scope:
        mapping = ops.convert_to_tensor(mapping)
    if mapping.dtype.base_dtype != dtypes.string:
        raise ValueError("string_to_index_table_from_tensor requires string.")
    return index_table_from_tensor(mapping, num_oov_buckets, default_value, hasher_spec,
                                   name=scope)  # fmt: skip


class HashTable(lookup_ops.HashTable):
    """Core's v1 hash table (``init``, ``export``), taking TF 1.x contrib's ``shared_name``."""

    def __init__(self, initializer, default_value, shared_name=None, name=None):
        self._contrib_shared_name = shared_name
        super().__init__(initializer, default_value, name=name)

    def _create_resource(self):
        if self._contrib_shared_name:  # shared across sessions under this name, as asked
            self._shared_name = self._contrib_shared_name
        return super()._create_resource()


MutableDenseHashTable = lookup_ops.DenseHashTable
_UTIL = {"constant_value": tensor_util.constant_value, "make_ndarray": tensor_util.MakeNdarray,
         "make_tensor_proto": tensor_util.make_tensor_proto,
         "ops_used_by_graph_def": meta_graph.ops_used_by_graph_def,
         "stripped_op_list_for_graph": meta_graph.stripped_op_list_for_graph}  # fmt: skip


def resolve(name: str):
    """``tf.contrib.lookup.<name>`` as TF 1.15 had it."""
    return globals()[name] if name in OWN else getattr(lookup_ops, name)


def resolve_util(name: str):
    """``tf.contrib.util.<name>`` as TF 1.15 had it."""
    return _UTIL[name]
