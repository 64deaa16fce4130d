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
    from tensorflow.python.ops import variables

    set_attribute(
        variables,
        "_safe_initial_value_from_op",
        _guarding_resource_reads(variables._safe_initial_value_from_op),
    )


def _guarding_resource_reads(original):
    """TF 1.15 rewrote an initial value that reads another variable
    (``m = tf.Variable(p * 0)``: GPT-1's Adam, every accumulator made from a
    weight) to read ``p.initialized_value()``, so
    ``global_variables_initializer()`` may run the initializers in any
    order. TensorFlow 2.21 does so for reference variables only
    (``_safe_initial_value_from_op`` returns a ``ReadVariableOp`` as it is,
    b/70206927), so a resource variable's copy races its source's
    initializer: ``FailedPreconditionError: Could not find variable p``.
    The read of a variable in the graph's collections becomes its
    ``initialized_value()`` (above), as TF 1.15 did for its variables."""
    from tensorflow.python.framework import ops

    def safe_initial_value_from_op(name, op, op_cache):
        if op.type == "ReadVariableOp" and op.inputs and op.inputs[0].op.type == "VarHandleOp":
            handle_op = op.inputs[0].op
            for key in (ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.LOCAL_VARIABLES):
                for var in op.graph.get_collection(key):
                    handle = getattr(var, "handle", None)
                    if getattr(handle, "op", None) is handle_op:
                        return var.initialized_value().op
        return original(name, op, op_cache)

    return safe_initial_value_from_op
