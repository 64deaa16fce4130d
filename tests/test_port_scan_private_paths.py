"""TensorFlow's private modules as TF1 code used them (facenet's
freeze_graph.py: ``graph_util.convert_variables_to_constants``): the scan
breaks exactly on the lines TensorFlow 2.21 raises on, and the public names
it offers instead exist."""

import pytest
from conftest import raising_lines

from tf1_train.port import scan

# One statement a line: raising_lines runs each on its own, after the ones above.
PROGRAM = (
    "import tensorflow as tf\n"
    "from tensorflow.python.framework import graph_util\n"
    "f = graph_util.convert_variables_to_constants\n"
    "from tensorflow.python.framework import ops\n"
    "t = ops.Tensor\n"
    "from tensorflow.python.ops import control_flow_ops, gen_nn_ops\n"
    "c = control_flow_ops.cond\n"
    "g = gen_nn_ops._max_pool_grad\n"
    "from tensorflow.python.ops.rnn_cell_impl import _linear\n"
    "import tensorflow.python.ops.seq2seq\n"
    "w = control_flow_ops.with_dependencies\n"
    "s = control_flow_ops.switch\n"
    "g = gen_nn_ops.max_pool_grad\n"
    "from tensorflow.python.training import checkpoint_management, moving_averages\n"
    "latest = checkpoint_management.latest_checkpoint\n"
    "a = moving_averages.assign_moving_average\n"
    "from tensorflow.python.platform import gfile\n"
    "q = gfile.FastGFile\n"
    "from tensorflow.python.ops.rnn_cell_impl import LSTMCell\n"
    "v = tf.compat.v1.graph_util.convert_variables_to_constants\n"
)


def _scan(tmp_path, source, compat=False):
    (tmp_path / "prog.py").write_text(source)
    return [f for f in scan.scan([str(tmp_path)], compat=compat).findings]


def test_the_scan_breaks_exactly_where_tensorflow_2_21_raises(tmp_path):
    findings = _scan(tmp_path, PROGRAM)
    breaks = {f.line for f in findings if f.severity == "breaks"}
    assert breaks == raising_lines(PROGRAM, (AttributeError, ImportError)) == {3, 5, 7, 8, 9, 10}
    assert {f.rule for f in findings if f.severity == "breaks"} == {"private-path"}
    fixes = {f.line: f.fix for f in findings if f.rule == "private-path"}
    assert fixes[3].startswith("tf.compat.v1.graph_util.convert_variables_to_constants: ")
    assert fixes[7].startswith("tf.compat.v1.cond: ")
    assert fixes[8].startswith("tensorflow.python.ops.gen_nn_ops.max_pool_grad: ")


def test_each_public_name_it_offers_exists(tmp_path):
    import tensorflow as tf

    offered = [f.fix.split(":", 1)[0] for f in _scan(tmp_path, PROGRAM)]
    public = [name for name in offered if name.startswith("tf.")]
    assert len(public) == 3  # convert_variables_to_constants, Tensor, cond
    for name in public:  # tf.a.b.c: attribute by attribute
        obj = tf
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        assert callable(obj), name


@pytest.mark.parametrize("compat", [False, True])
def test_the_modules_install_puts_back_work_under_compat(tmp_path, compat):
    # tensorflow-estimator imports these; TensorFlow 2.16 removed them.
    source = (
        "from tensorflow.python.distribute import estimator_training\n"
        "from tensorflow.python.tpu import tpu_embedding\n"
        "t = tpu_embedding.TPUEmbedding\n"
    )
    rules = [f.rule for f in _scan(tmp_path, source, compat) if f.rule == "private-path"]
    assert len(rules) == (0 if compat else 3)


def test_the_names_install_puts_back_work_under_compat(tmp_path, installed):
    """install() puts ops.Tensor and control_flow_ops.cond back (tf-slim reads
    them): under --compat the scan breaks on the lines that still raise then
    (SSD-Tensorflow's tf_image.py was told 5 lines break that ran)."""
    findings = _scan(tmp_path, PROGRAM, compat=True)
    breaks = {f.line for f in findings if f.severity == "breaks"}
    # line 3, graph_util.convert_variables_to_constants, is put back too (TF 1.x's retrain.py)
    assert breaks == raising_lines(PROGRAM, (AttributeError, ImportError)) == {8, 9, 10}
