"""TF 0.x's positional ``(logits, labels)`` cross entropy
(tf1_train/compat/_xent_named_args.py; scan rules xent-positional and
xent-positional-sparse). TF 1.15.5 refused any positional argument to the
three v1 ops; TF 2.21's ``tf.compat.v1.nn`` takes ``(labels, logits)`` by
position, so the softmax call gave 4.535759 where the keywords give 2.132938
(measured on pathak22/noreward-rl's pattern). After install() the program
stops where TF 1.15.5 stopped it, with its message, and the scan under
``--compat`` says ``breaks`` on exactly those lines."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import raising_lines

from tf1_train.port import scan

v1 = tf.compat.v1
PROGRAM = (
    "import numpy as np\n"
    "import tensorflow.compat.v1 as tf\n"
    "logits = np.eye(3, dtype=np.float32) * 2.0\n"
    "labels = np.eye(3, dtype=np.float32)[[1, 2, 0]]\n"
    "xent = tf.nn.softmax_cross_entropy_with_logits(logits, labels)\n"
    "bce = tf.nn.sigmoid_cross_entropy_with_logits(logits, labels)\n"
    "ids = tf.nn.sparse_softmax_cross_entropy_with_logits(logits, np.array([1, 2, 0]))\n"
    "ok = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)\n"
    "v2 = tf.compat.v2.nn.softmax_cross_entropy_with_logits(labels, logits)\n"
)
NAMES = ["softmax", "sigmoid", "sparse_softmax"]


def _call(name, *args, **kwargs):
    return getattr(v1.nn, f"{name}_cross_entropy_with_logits")(*args, **kwargs)


def test_tensorflow_2_swaps_the_roles_where_tf_1_refused():
    logits = np.eye(3, dtype=np.float32) * 2.0
    labels = np.eye(3, dtype=np.float32)[[1, 2, 0]]
    swapped = float(tf.reduce_sum(_call("softmax", logits, labels)))
    named = float(tf.reduce_sum(_call("softmax", labels=labels, logits=logits)))
    assert not np.isclose(swapped, named)


@pytest.mark.parametrize("name", NAMES)
def test_after_install_a_positional_call_raises_tf_1_15s_error(installed, name):
    logits = np.eye(3, dtype=np.float32)
    labels = np.array([1, 2, 0]) if name.startswith("sparse") else logits[[1, 2, 0]]
    full = f"{name}_cross_entropy_with_logits"
    with pytest.raises(ValueError, match=f"Only call `{full}` with named arguments"):
        _call(name, logits, labels)
    assert _call(name, labels=labels, logits=logits).shape[0] == 3


def test_the_scan_under_compat_breaks_where_the_installed_program_raises(tmp_path, installed):
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert raising_lines(PROGRAM, (ValueError,)) == {5, 6, 7}
    found = {(f.line, f.severity) for f in scan.scan([str(tmp_path)], compat=True).findings}
    assert found == {(5, "breaks"), (6, "breaks"), (7, "breaks")}
    found = {(f.line, f.severity) for f in scan.scan([str(tmp_path)]).findings}
    assert found == {(5, "changes numbers"), (6, "changes numbers"), (7, "breaks")}
