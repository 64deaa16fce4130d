"""``Variable.initialized_value()`` on resource variables, after install().

TF 1.x's variables guide taught it for a variable whose initial value reads
another: ``w2 = tf.Variable(w.initialized_value() * 2.0)``, and the gradient
accumulation idiom of TF 1.x trainers is built on it:
``tf.Variable(tf.zeros_like(v.initialized_value()), trainable=False)`` for
each trainable ``v``. TF 1.15 gave every variable class one method: in
``init_scope``, ``v``'s value if it is initialized, else its initial value
(so the initializers may run in any order). TensorFlow 2.21 kept it on TF
1.x's reference variables only: on a resource variable, which
``get_variable`` and ``tf.compat.v1.Variable`` now make, it raises a bare
``NotImplementedError``. install() gives resource variables TF 1.15's method
back.
"""


def initialized_value(self):
    """TF 1.15's ``Variable.initialized_value``: this variable's value once
    it is initialized, its initial value before (in ``init_scope``)."""
    import tensorflow as tf
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import state_ops

    with ops.init_scope():
        return tf.compat.v1.cond(
            state_ops.is_variable_initialized(self), self.read_value, lambda: self.initial_value
        )


def install(set_attribute) -> None:
    """Put the method on TensorFlow's resource variables through
    ``set_attribute`` (_install._set: uninstall() takes it off again)."""
    from tensorflow.python.ops import resource_variable_ops

    set_attribute(
        resource_variable_ops.BaseResourceVariable, "initialized_value", initialized_value
    )
