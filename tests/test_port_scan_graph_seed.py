"""TF 1.x's graph-level seed (scan rule graph-seed,
tf1_train/port/runtime_rules.py; PORTING.md P6). With only
``tf.set_random_seed(123)`` set, TF 1.x gave an op without a seed of its
own the number of ops built before it as its seed; TensorFlow 2 counts the
graph's draws instead. tests/legacy_scripts/graph_seed_style.py printed
TF_1_15_5 on TensorFlow 1.15.5 (measured): the unseeded shuffle there drew
with (123, 8), which the seeded one is given. ``--v1_seeds`` (with
``--v1_variables``, whose variables are TF 1.x's ops) gives the op count as
the seed again: tests/legacy_scripts/graph_seed_layers_style.py, a model of
tf.layers' dense, conv2d, conv2d_transpose, batch norm, dropout and flatten
and tf.nn.dropout, then prints TF 1.15.5's initial weights, output and last
draw (measured 2026-12-07), where as written every one of them differs.
tests/legacy_scripts/graph_seed_rnn_style.py holds the ops TF 2 stopped
building to TF 1.15.5's count (compat/_v1_ops.py): a dynamic_rnn of a
dropout-wrapped LSTMCell, tf.split, tf.random_uniform over [0, 1),
tf.random_gamma, a dense layer on a 3-D input (tf.tensordot) and an
initializable tf.data iterator; before them, its dense kernel, output and
last draw differed from TF 1.15.5's under ``--v1_seeds`` (measured
2026-12-07; the last draw until the tensordot and the iterator, measured
2026-12-07 in CS 20's word2vec and char-rnn too), as did
tests/legacy_scripts/graph_seed_slim_style.py's weights after its first
(tf.contrib.layers' conv2d with a frozen batch norm, conv2d_transpose and
flatten, a tf.losses loss of tf.one_hot labels before a second head)."""

import os

import pytest
from conftest import ROOT, run_legacy_script

from tf1_train.port import scan

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "graph_seed_style.py")
LAYERS = os.path.join(ROOT, "tests", "legacy_scripts", "graph_seed_layers_style.py")
RNN = os.path.join(ROOT, "tests", "legacy_scripts", "graph_seed_rnn_style.py")
RNN_TF_1_15_5 = {
    "rnn/lstm_cell/kernel": "2.390086",
    "logits/kernel": "1.372921",
    "per_step/kernel": "2.774572",
    "output": "0.57670",
    "draw": "-0.589209 0.497884 1.664799",
}
SLIM = os.path.join(ROOT, "tests", "legacy_scripts", "graph_seed_slim_style.py")
SLIM_TF_1_15_5 = {
    "Conv/weights": "1.029247",
    "Conv2d_transpose/weights": "-1.591388",
    "fully_connected/weights": "-4.739901",
    "head2/fully_connected/weights": "-2.237238",
    "loss": "1.68556",
    "draw": "1.142072 -0.537285 -0.573051",
}
LAYERS_TF_1_15_5 = {
    "conv/kernel": "-0.911328",
    "deconv/kernel": "-0.072677",
    "fc/kernel": "6.317050",
    "logits/kernel": "0.297552",
    "draw": "-2.810353 0.440115 0.557059",
}
LAYERS_OUTPUT_TF_1_15_5 = -3.96694  # summed logits: the kernels' sums differ in the last digit
TF_1_15_5 = {"unseeded": "3 5 4 1 6 0 7 2", "seeded": "3 5 4 1 6 0 7 2"}


def test_an_unseeded_draw_moves_an_op_seeded_one_stays_and_the_scan_says_so(tmp_path):
    out = run_legacy_script("--v1", tmp_path, SCRIPT)
    assert out["seeded"] == TF_1_15_5["seeded"]
    assert out["unseeded"] != TF_1_15_5["unseeded"]
    assert sorted(out["unseeded"].split()) == sorted(TF_1_15_5["unseeded"].split())
    for options in ({"v1": True}, {"v1": True, "v1_variables": True}):
        found = [f for f in scan.scan([SCRIPT], **options).findings if f.rule == "graph-seed"]
        seed_line = _line("    tf.set_random_seed(123)")
        assert [(f.severity, f.line) for f in found] == [("changes numbers", seed_line)]


def _line(text: str) -> int:
    with open(SCRIPT) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def test_v1_seeds_gives_tf_1_15_5s_draws_again(tmp_path):
    out = run_legacy_script("--v1", tmp_path, "--v1_seeds", "--v1_variables", SCRIPT)
    assert out == TF_1_15_5
    out = run_legacy_script("--v1", tmp_path, "--v1_seeds", "--v1_variables", LAYERS)
    assert {k: out[k] for k in LAYERS_TF_1_15_5} == LAYERS_TF_1_15_5
    assert abs(float(out["output"]) - LAYERS_OUTPUT_TF_1_15_5) < 1e-4
    assert out["bn/gamma"] == out["bn/moving_variance"] == "4.000000"
    as_written = run_legacy_script("--v1", tmp_path, LAYERS)
    assert all(as_written[k] != v for k, v in LAYERS_TF_1_15_5.items())
    assert abs(float(as_written["output"]) - LAYERS_OUTPUT_TF_1_15_5) > 0.1


@pytest.mark.parametrize("script, tf_1_15_5", [(RNN, RNN_TF_1_15_5), (SLIM, SLIM_TF_1_15_5)])
def test_v1_seeds_builds_the_ops_tf_2_skips_so_later_draws_stay_tf_1_15_5s(
    tmp_path, script, tf_1_15_5
):
    out = run_legacy_script("--v1", tmp_path, "--v1_seeds", "--v1_variables", script)
    assert {k: out[k] for k in tf_1_15_5} == tf_1_15_5
    as_written = run_legacy_script("--v1", tmp_path, script)
    assert all(as_written[k] != v for k, v in tf_1_15_5.items())


# (a's shape, b's shape, axes) -> ops TF 1.15.5's tensordot built (measured 2026-12-07)
TENSORDOT_TF_1_15_5 = [
    ([None, 5, 3], [3, 4], [[2], [0]], 25),
    ([2, 5, 3], [3, 4], [[2], [0]], 11),
    ([2, 5, 3], [3, 4], 1, 11),
    ([6, 3], [3, 4], 1, 11),
    ([3, 6], [3, 4], [[0], [0]], 11),
    ([2, 5, 3], [4, 3], [[2], [1]], 11),
    ([2, 3], [3], 1, 11),
    ([3], [3, 4], [[0], [0]], 11),
    (None, [3, 4], [[2], [0]], 33),
    ([2, 3, 4], [3, 4, 5], 2, 11),
    ([2, 3], [4, 5], 0, 11),
    ([None, 5, 3], [3, 4], [[-1], [0]], 25),
]


@pytest.mark.parametrize("a_shape, b_shape, axes, tf_1_15_5", TENSORDOT_TF_1_15_5)
def test_tensordots_stand_ins_make_up_tf_1_15_5s_op_count(a_shape, b_shape, axes, tf_1_15_5):
    import tensorflow as tf

    from tf1_train.compat._v1_ops import _tensordot_skips

    with tf.Graph().as_default() as graph:
        a = tf.compat.v1.placeholder(tf.float32, a_shape)
        b = tf.compat.v1.placeholder(tf.float32, b_shape)
        before = len(graph.get_operations())
        tf.tensordot(a, b, axes)
        built = len(graph.get_operations()) - before
    assert built + _tensordot_skips(a.shape, b.shape, axes) == tf_1_15_5


def _sequence_example() -> bytes:
    import tensorflow as tf

    example = tf.train.SequenceExample()
    example.context.feature["len"].int64_list.value.append(3)
    example.context.feature["tags"].float_list.value.extend([0.5, 1.5])
    for i in (4, 5, 6):
        example.feature_lists.feature_list["ids"].feature.add().int64_list.value.append(i)
    return example.SerializeToString()


# (context features, sequence features) -> ops TF 1.15.5's parse built (measured 2026-12-07)
SEQUENCE_PARSES_TF_1_15_5 = [
    ({"len": ("fixed", [], "int64")}, {"ids": ("fixed_seq", [], "int64")}, 6),
    ({"len": ("fixed", [], "int64", 0)}, {"ids": ("fixed_seq", [], "int64")}, 8),
    ({"tags": ("var", "float32")}, {"ids": ("var", "int64")}, 5),
    ({"len": ("fixed", [], "int64")}, {"ids": ("fixed_seq", [], "int64"), "gone": ("missing",)}, 7),
    ({"len": ("fixed", [], "int64")}, None, 5),
]


def _features(specs):
    import tensorflow as tf

    v1 = tf.compat.v1
    kinds = {
        "fixed": lambda shape, dtype, *default: v1.FixedLenFeature(shape, dtype, *default),
        "fixed_seq": lambda shape, dtype: v1.FixedLenSequenceFeature(shape, dtype),
        "var": lambda dtype: v1.VarLenFeature(dtype),
        "missing": lambda: v1.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    }
    return None if specs is None else {k: kinds[s[0]](*s[1:]) for k, s in specs.items()}


@pytest.mark.parametrize("context, sequence, tf_1_15_5", SEQUENCE_PARSES_TF_1_15_5)
def test_a_sequence_example_parses_in_tf_1_15_5s_ops_to_tf_2s_values(context, sequence, tf_1_15_5):
    import numpy as np
    import tensorflow as tf

    from tf1_train.compat._v1_ops_parsing import parse_single_sequence_example

    original = tf.compat.v1.io.parse_single_sequence_example
    rebuilt = parse_single_sequence_example(original)
    with tf.Graph().as_default() as graph:
        serialized = tf.compat.v1.placeholder(tf.string, [])
        before = len(graph.get_operations())
        ours = rebuilt(serialized, _features(context), _features(sequence))
        assert len(graph.get_operations()) - before == tf_1_15_5
        theirs = original(serialized, _features(context), _features(sequence))
        with tf.compat.v1.Session() as sess:
            ours, theirs = sess.run((ours, theirs), {serialized: _sequence_example()})
    for mine, tf2 in zip(ours, theirs):
        assert sorted(mine) == sorted(tf2)
        for key in mine:
            flat = [np.asarray(x).tolist() for x in tf.nest.flatten(mine[key], True)]
            assert flat == [np.asarray(x).tolist() for x in tf.nest.flatten(tf2[key], True)]
