"""``isinstance(v, tf.compat.v1.Variable)`` true again for resource variables,
and a variable true as a condition in a v1 graph again.

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

A TF 1.x reference variable had no ``__bool__``: as a condition it was true,
like any object. The EMA custom getter that Google's semi-supervised code
bases (MixMatch, FixMatch) and many GANs copied tests one:
``ema_var = ema.average(var); return ema_var if ema_var else var`` (None
when the variable has no average). A resource variable's ``__bool__``
reads its value, which in a v1 graph raises OperatorNotAllowedInGraphError
("Using a symbolic tf.Tensor as a Python bool"). install() makes a variable
of a v1 graph true as a condition, as TF 1.x's were; an eager variable keeps
TF 2's meaning (its value's truth; inside a ``tf.function`` an error).
"""


def install(set_attribute) -> None:
    """``isinstance``/``issubclass`` against ``VariableV1`` also accept
    resource variables, and a variable is true in a v1 graph, through
    ``set_attribute`` (_install._set: uninstall() puts TensorFlow's own back)."""
    from tensorflow.python.ops import resource_variable_ops, variable_v1

    v1 = variable_v1.VariableV1
    resource = resource_variable_ops.BaseResourceVariable
    _install_truth(set_attribute, resource)
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


def _install_truth(set_attribute, resource) -> None:
    original = getattr(resource.__bool__, "_tf1_train_original", resource.__bool__)

    def __bool__(self) -> bool:
        if getattr(self, "_in_graph_mode", False):
            return True  # a v1 graph's: TF 1.x's reference variables were true as objects
        return original(self)  # an eager variable: TF 2's (the value; raises in a tf.function)

    __bool__._tf1_train_original = original
    set_attribute(resource, "__bool__", __bool__)
