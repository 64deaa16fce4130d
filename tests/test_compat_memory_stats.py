"""``tf.contrib.memory_stats`` after tf1_train.compat.install()
(tf1_train/compat/_contrib_memory_stats.py) and TensorBoard 1.x's summary
functions under ``tensorboard.summary`` (tf1_train/compat/_tensorboard_v1.py):
two lines of NVIDIA's StyleGAN training loop."""

import pytest
import tensorflow as tf

from tf1_train.compat import _contrib_memory_stats

v1 = tf.compat.v1


@pytest.fixture
def fresh_notice():
    _contrib_memory_stats._said.clear()
    yield
    _contrib_memory_stats._said.clear()


def test_on_a_cpu_the_counters_answer_zero_and_say_so_once(installed, fresh_notice, capsys):
    with tf.Graph().as_default() as graph:
        with v1.device("/cpu:0"):
            peak = tf.contrib.memory_stats.MaxBytesInUse()
            again = tf.contrib.memory_stats.MaxBytesInUse()
            used = tf.contrib.memory_stats.BytesInUse()
        with v1.Session(graph=graph) as sess:
            assert sess.run([peak, again, used]) == [0, 0, 0]
    assert peak.dtype == tf.int64 and peak.shape == ()
    said = capsys.readouterr().err.splitlines()
    assert [line.split(" on ")[0] for line in said] == [
        "tf1_train.compat: tf.contrib.memory_stats.MaxBytesInUse",
        "tf1_train.compat: tf.contrib.memory_stats.BytesInUse",
    ]
    assert "answers 0: TensorFlow keeps no allocator statistics for a CPU" in said[0]


def test_built_for_a_gpu_the_op_reads_that_gpus_counter_on_its_host(installed):
    # GPU-only (not run here): the op is built for /gpu:1 and placed on the host CPU.
    with tf.Graph().as_default():
        with v1.device("/job:worker/task:1/gpu:1"):
            peak = tf.contrib.memory_stats.MaxBytesInUse()
        with v1.device(None):
            unplaced = tf.contrib.memory_stats.BytesInUse()
    assert peak.op.type == "PyFunc"
    assert peak.device == "/job:worker/task:1/device:CPU:0"
    assert unplaced.device == "/device:CPU:0"  # no scope: /gpu:0's counter, as TF 1.15 placed it


def test_the_limit_is_one_line_that_says_what_is_kept(installed):
    with pytest.raises(NotImplementedError, match="reports no allocator limit.*are kept"):
        tf.contrib.memory_stats.BytesLimit()


def test_without_install_the_module_is_gone():
    with pytest.raises(AttributeError):
        tf.contrib.memory_stats  # noqa: B018


def test_tensorboard_1_x_summary_functions_are_back_after_install(installed):
    import tensorboard.summary as summary
    from tensorboard.summary import v1 as tensorboard_v1

    from tf1_train.compat._tensorboard_v1 import MOVED

    assert all(getattr(summary, name) is getattr(tensorboard_v1, name) for name in MOVED)
    assert summary.scalar is not tensorboard_v1.scalar  # the five both have: TensorBoard 2's


def test_without_install_tensorboard_summary_lacks_them():
    import tensorboard.summary as summary

    from tf1_train.compat._tensorboard_v1 import MOVED

    assert not any(hasattr(summary, name) for name in MOVED)


LAYOUT = """from tensorboard import summary as summary_lib
from tensorboard.plugins.custom_scalar import layout_pb2
chart = layout_pb2.Chart(title="loss", multiline=layout_pb2.MultilineChartContent(tag=["loss"]))
layout = layout_pb2.Layout(category=[layout_pb2.Category(title="train", chart=[chart])])
pb = summary_lib.custom_scalar_pb(layout)
"""


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_reports_the_moved_read_where_it_raises_until_install(tmp_path, compat):
    from conftest import raising_lines

    from tf1_train.port import scan

    (tmp_path / "layout.py").write_text(LAYOUT)
    found = [f for f in scan.scan([str(tmp_path)], compat=compat).findings]
    assert [(f.line, f.rule) for f in found] == [(5, "tensorboard-summary-v1")]
    assert found[0].severity == ("works" if compat else "breaks")
    assert raising_lines(LAYOUT) == {5}  # without install(): that line, and no other
