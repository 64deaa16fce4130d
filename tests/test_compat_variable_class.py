"""``isinstance(v, tf.compat.v1.Variable)`` before and after
tf1_train.compat.install() (tf1_train/compat/_variable_class.py).

On TF 1.15 every variable was a ``VariableV1`` (TensorFlow 1.15.5, checked:
a resource variable from ``tf.Variable(..., use_resource=True)`` and one
from ``get_variable(..., use_resource=True)`` are both instances, and
``ResourceVariable`` a subclass). TensorFlow 2.21's resource variables, which
``get_variable``, ``tf.compat.v1.Variable`` and TF 2's ``tf.Variable`` make, are not:
a TF1 program's ``assert isinstance(var, tf.Variable)`` (StyleGAN's
``set_vars``) fails, its ``if isinstance(x, tf.Variable)`` takes the other
branch.
"""

import pytest
import tensorflow as tf
from tensorflow.python.ops import resource_variable_ops

from tf1_train.compat import _install

v1 = tf.compat.v1


def _variables():
    with tf.Graph().as_default():
        made = {
            "Variable": v1.Variable(tf.zeros([2])),
            "get_variable": v1.get_variable("w", [2]),
            "tf2_Variable": tf.Variable([1.0, 2.0]),
        }
        return made, tf.constant(1.0)


def test_without_install_no_variable_tensorflow_2_makes_is_a_v1_variable():
    made, tensor = _variables()
    assert not any(isinstance(v, v1.Variable) for v in made.values())
    assert all(isinstance(v, tf.Variable) for v in made.values())  # TF 2's base class is
    assert not issubclass(resource_variable_ops.ResourceVariable, v1.Variable)


def test_after_install_every_variable_is_one_as_on_tf_1_15(installed):
    made, tensor = _variables()
    assert {k: isinstance(v, v1.Variable) for k, v in made.items()} == dict.fromkeys(made, True)
    assert issubclass(resource_variable_ops.ResourceVariable, v1.Variable)
    assert not isinstance(tensor, v1.Variable) and not isinstance(3, v1.Variable)
    assert not issubclass(int, v1.Variable)
    assert not isinstance(made["Variable"], resource_variable_ops.UninitializedVariable)


def test_uninstall_takes_it_back():
    import tf1_train.compat

    tf1_train.compat.install()
    tf1_train.compat.uninstall()
    made, _ = _variables()
    assert not isinstance(made["get_variable"], v1.Variable)
    assert not _install.is_installed()


@pytest.mark.parametrize("twice", [1, 2])
def test_installing_again_wraps_the_check_once(twice):
    import tf1_train.compat

    meta = type(v1.Variable)
    original = meta.__instancecheck__
    for _ in range(twice):
        tf1_train.compat.install()
    assert meta.__instancecheck__._tf1_train_original is getattr(
        original, "_tf1_train_original", original
    )
    tf1_train.compat.uninstall()


PROGRAM = """import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
v = tf.get_variable("v", [2])
print("is_variable =", isinstance(v, tf.Variable))
"""


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_reports_the_check_until_install_runs(tmp_path, compat):
    from tf1_train.port import scan

    (tmp_path / "prog.py").write_text(PROGRAM)
    (found,) = [f for f in scan.scan([str(tmp_path)], compat=compat).findings if f.line == 4]
    assert (found.rule, found.severity) == (
        "isinstance-v1-variable",
        "works" if compat else "changes numbers",
    )
    assert "tf.compat.v2.Variable" in found.fix


def test_the_fix_the_scan_names_holds_for_every_variable():
    made, tensor = _variables()
    assert all(isinstance(v, tf.compat.v2.Variable) for v in made.values())
    assert not isinstance(tensor, tf.compat.v2.Variable)


def test_a_variable_as_a_condition_raises_in_a_v1_graph_without_install():
    # TF 1.15.5 (checked): a reference variable is true, having no __bool__.
    with tf.Graph().as_default():
        for variable in (v1.get_variable("w", [2]), v1.Variable(0.0)):
            with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
                bool(variable)


def test_after_install_a_v1_graphs_variable_is_true_and_an_eager_one_its_value(installed):
    made, _ = _variables()
    assert all(bool(v) for v in made.values())
    zero, one = tf.Variable(0.0), tf.Variable(1.0)
    assert (bool(zero), bool(one)) == (False, True)  # eager: TF 2's meaning, the value

    @tf.function
    def condition():
        return bool(one)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        condition()
