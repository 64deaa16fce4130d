"""What ``tf.contrib.lookup`` and ``tf.contrib.util`` computed: run with TF
1.15.5's own modules (scripts/make_contrib_lookup_goldens.py writes
tests/goldens/contrib_lookup_tf115.json) and with the ones
tf1_train.compat.install() serves (tests/test_compat_contrib_lookup.py).
Each case builds in the graph the caller made default; Python 3.7 runs it too.
"""

import os

WORDS = ["the", "cat", "sat", "on", "mat"]
QUERY = ["cat", "dog", "the", "zebra", "mat", "apple"]


def _vocabulary(folder):
    path = os.path.join(folder, "vocab.txt")
    with open(path, "w") as f:
        f.write("\n".join(WORDS) + "\n")
    return path


def outcomes(tf, folder):
    """name -> a list of Python values; ``tf``: the v1 API, graph mode on."""
    lookup, util = tf.contrib.lookup, tf.contrib.util
    vocab, words, query = _vocabulary(folder), tf.constant(WORDS), tf.constant(QUERY)
    keys, values = tf.constant([3, 7, 11], tf.int64), tf.constant([0.5, 1.5, 2.5])
    hash_table = lookup.HashTable(lookup.KeyValueTensorInitializer(keys, values), -1.0)
    mutable = lookup.MutableHashTable(tf.string, tf.int64, default_value=-7)
    dense = lookup.MutableDenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0,
                                         deleted_key=-1)  # fmt: skip
    lines = lookup.TextFileInitializer(vocab, tf.string, lookup.TextFileIndex.WHOLE_LINE,
                                       tf.int64, lookup.TextFileIndex.LINE_NUMBER)  # fmt: skip
    fetches = {
        "from_tensor": lookup.index_table_from_tensor(mapping=words).lookup(query),
        "from_tensor_oov": lookup.index_table_from_tensor(words, num_oov_buckets=3).lookup(query),
        "strong_hash": lookup.index_table_from_tensor(
            words, num_oov_buckets=4, hasher_spec=lookup.StrongHashSpec((7, 13))).lookup(query),
        "from_file": lookup.index_table_from_file(
            vocab, num_oov_buckets=2, vocab_size=4, default_value=-5).lookup(query),
        "to_string_from_file": lookup.index_to_string_table_from_file(
            vocab, default_value="?").lookup(tf.constant([0, 4, 9], tf.int64)),
        "string_to_index": lookup.string_to_index(query, mapping=words, default_value=-2),
        "index_to_string": lookup.index_to_string(tf.constant([1, 7], tf.int64), mapping=words),
        "string_table_from_tensor": lookup.string_to_index_table_from_tensor(
            words, num_oov_buckets=1).lookup(query),
        "string_table_from_file": lookup.string_to_index_table_from_file(
            vocab, default_value=-3).lookup(query),
        "hash_table": hash_table.lookup(tf.constant([7, 8, 3], tf.int64)),
        "hash_table_size": hash_table.size(),
        "with_buckets": lookup.IdTableWithHashBuckets(
            lookup.HashTable(lookup.TextFileIdTableInitializer(vocab), -1), 2).lookup(query),
        "text_file_initializer": lookup.HashTable(lines, -1).lookup(query),
        "constant_value": util.constant_value(tf.constant([3, 4])),
    }  # fmt: skip
    insert = mutable.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    dense_insert = dense.insert(tf.constant([5, 9], tf.int64), tf.constant([50, 90], tf.int64))
    proto = util.make_tensor_proto([[1.5, 2.5]], dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        sess.run([insert, dense_insert])
        found = {k: v if not hasattr(v, "op") else sess.run(v) for k, v in fetches.items()}
        found["mutable"] = sess.run(mutable.lookup(tf.constant(["b", "c", "a"])))
        found["mutable_size"] = sess.run(mutable.size())
        exported = sess.run(hash_table.export())
        found["export"] = sorted(zip(exported[0].tolist(), exported[1].tolist()))
        found["dense"] = sess.run(dense.lookup(tf.constant([9, 4, 5], tf.int64)))
    found["make_ndarray"] = util.make_ndarray(proto)
    graph_def = tf.GraphDef()  # a fixed one: the ops each TensorFlow builds differ
    for name, op in (("a", "Const"), ("b", "Add"), ("c", "HashTableV2"), ("d", "Identity")):
        graph_def.node.add(name=name, op=op)
    found["ops_used"] = sorted(util.ops_used_by_graph_def(graph_def))
    found["stripped"] = sorted(op.name for op in util.stripped_op_list_for_graph(graph_def).op)
    return {k: _plain(v) for k, v in found.items()}


def _plain(value):
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
