"""``tf.contrib.lookup`` and ``tf.contrib.util`` after tf1_train.compat.install()
(tf1_train/compat/_contrib_lookup.py), held to TensorFlow 1.15.5's own
(tests/goldens/contrib_lookup_tf115.json, scripts/make_contrib_lookup_goldens.py)."""

import json
import os

import pytest
import tensorflow as tf
from contrib_lookup_cases import outcomes

from tf1_train.compat import _contrib
from tf1_train.port import scan

GOLDEN = os.path.join(os.path.dirname(__file__), "goldens", "contrib_lookup_tf115.json")


def test_every_case_gives_tf_1_15_5s_ids_strings_and_values(installed, tmp_path):
    with open(GOLDEN) as f:
        golden = json.load(f)
    with tf.Graph().as_default():
        found = json.loads(json.dumps(outcomes(tf.compat.v1, str(tmp_path))))  # as stored
    assert sorted(found) == sorted(k for k in golden if k != "versions")
    for key in found:
        assert found[key] == golden[key], key


def test_every_name_of_tf_1_15s_modules_is_kept():
    # TF 1.15.5's dir(tensorflow.contrib.lookup) and dir(tensorflow.contrib.util), public
    assert len(_contrib._KEPT["lookup"][0]) == 23
    assert sorted(_contrib._KEPT["util"][0]) == [
        "constant_value", "make_ndarray", "make_tensor_proto", "ops_used_by_graph_def",
        "stripped_op_list_for_graph",
    ]  # fmt: skip


def test_loader_is_gone_in_one_line(installed):
    with pytest.raises(AttributeError, match="tf.load_op_library"):
        tf.compat.v1.contrib.util.loader  # noqa: B018


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_says_they_work_after_install(tmp_path, compat):
    (tmp_path / "prog.py").write_text(
        "import tensorflow as tf\n"
        "table = tf.contrib.lookup.index_table_from_tensor(mapping=words)\n"
        "proto = tf.contrib.util.make_tensor_proto(batch, shape=[1, 2])\n"
    )
    found = [f for f in scan.scan([str(tmp_path)], compat=compat).findings if f.line > 1]
    expected = [(2, "works")] if compat else [(2, "breaks"), (3, "breaks")]  # works: once
    assert [(f.line, f.severity) for f in found] == expected
