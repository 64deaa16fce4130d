"""``isinstance(v, tf.compat.v1.Variable)`` true again for resource variables.

TF 1.x programs test for a variable with ``isinstance(x, tf.Variable)``:
NVIDIA's StyleGAN asserts it before every assignment (``tflib.set_vars``),
others take another branch when it is false. On TF 1.15 ``tf.Variable`` was
``VariableV1``, the base of both of its variable classes, reference and
resource. On TensorFlow 2.21 ``tf.compat.v1.Variable`` (``tf.Variable``
after ``import tensorflow.compat.v1 as tf``, or under ``python -m
tf1_train.compat --v1``) is still ``VariableV1``, but the resource variables
that ``get_variable``, ``tf.compat.v1.Variable`` and the ``tf.layers`` layers
now make no longer derive from it, so the test is false for every variable
the program has (Keras 3's own weights are no TensorFlow variables at all).
install() makes ``VariableV1`` answer true for them again, as its class did
on TF 1.15; ``tf.Variable`` of TF 2 already does.
"""


def install(set_attribute) -> None:
    """``isinstance``/``issubclass`` against ``VariableV1`` also accept
    resource variables, through ``set_attribute`` (_install._set: uninstall()
    puts the metaclass's own checks back)."""
    from tensorflow.python.ops import resource_variable_ops, variable_v1

    v1 = variable_v1.VariableV1
    resource = resource_variable_ops.BaseResourceVariable
    meta = type(v1)
    instance_check = getattr(meta.__instancecheck__, "_tf1_train_original", meta.__instancecheck__)
    subclass_check = getattr(meta.__subclasscheck__, "_tf1_train_original", meta.__subclasscheck__)

    def __instancecheck__(cls, instance):
        if cls is v1 and instance_check(resource, instance):
            return True
        return instance_check(cls, instance)

    def __subclasscheck__(cls, subclass):
        if cls is v1 and isinstance(subclass, type) and subclass_check(resource, subclass):
            return True
        return subclass_check(cls, subclass)

    __instancecheck__._tf1_train_original = instance_check
    __subclasscheck__._tf1_train_original = subclass_check
    set_attribute(meta, "__instancecheck__", __instancecheck__)
    set_attribute(meta, "__subclasscheck__", __subclasscheck__)
