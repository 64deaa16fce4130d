"""``tf.compat.v1.while_loop`` returning what TF 1.x's returned: the loop
variables in the structure the body returns.

TF 1.x packed a loop's results as its body's result (a body returning
``(i + c, c + 1)`` gave a tuple, whatever ``loop_vars`` was); TensorFlow 2's
loops, which the v1 API builds unless control flow v1 is on, pack them as
``loop_vars``: ``[tf.constant(0), tf.constant(1)]`` gives a list. So ``out +
(x,)`` raises "can only concatenate list (not "tuple") to list" and printed
results change (handson-ml's capsule-network notebook shows ``(328350,
100)``; TF 2 prints a list). With one loop variable both give the tensor.

Only the packing changes: the loop, its ops and its numbers are TF 2's.
Under ``--v1_control_flow`` / ``--v1_variables`` TF 1.x's own loop runs.
"""

import functools

_ORIGINAL = "_tf1_train_original"


def install(set_) -> None:
    """Every copy of the v1 API's ``while_loop`` (and the private
    ``control_flow_ops.while_loop`` install() puts back) packs as TF 1.x's."""
    import sys

    from tensorflow.python.ops import control_flow_ops

    v1_apis = [m for n, m in list(sys.modules.items()) if n.endswith("compat.v1") and m]
    for where in [*v1_apis, control_flow_ops]:
        current = getattr(where, "while_loop", None)
        if current is not None and not hasattr(current, _ORIGINAL):
            set_(where, "while_loop", packed_as_the_body(current))


def packed_as_the_body(while_loop):
    @functools.wraps(while_loop)
    def tf1_while_loop(cond, body, loop_vars, *args, **kwargs):
        from tensorflow.python.eager import context
        from tensorflow.python.framework import ops
        from tensorflow.python.ops import control_flow_util
        from tensorflow.python.util import nest

        graph = ops.get_default_graph()
        if context.executing_eagerly() or not control_flow_util.EnableControlFlowV2(graph):
            return while_loop(cond, body, loop_vars, *args, **kwargs)
        same = kwargs.pop("return_same_structure", False)
        results = []

        def recorded(*variables):
            results.append(body(*variables))
            return results[-1]

        out = while_loop(cond, recorded, loop_vars, *args, return_same_structure=True, **kwargs)
        shape = results[-1] if results else out
        if not nest.is_nested_or_composite(shape):
            shape = [shape]  # TF 1.x listed a body's lone result
        flat = nest.flatten(out, expand_composites=True)
        packed = nest.pack_sequence_as(shape, flat, expand_composites=True)
        if same:
            return packed
        return packed[0] if len(nest.flatten(out)) == 1 else packed

    setattr(tf1_while_loop, _ORIGINAL, while_loop)
    return tf1_while_loop
