"""A variable fed through ``feed_dict`` takes the fed value again, after install().

TF1 programs set a variable for one run by feeding it: a learning rate made as
``tf.Variable(0.0, trainable=False)`` and given each step in ``feed_dict``
(sketch-rnn's KL weight and learning rate, the PTB-era models). A TF 1.x reference
variable fed so handed the value to every op that read it in that run. A TF 2
resource variable is a handle read anew at each use, and the feed reached one
read only (the one made with the variable), so the run computed with the stored
value: nothing raised, and sketch-rnn's KL annealing never moved (PORTING P22).

After install() such a feed goes to each of the variable's reads in the graph
(its ``ReadVariableOp`` ops), as TF 1.x's did. A read TensorFlow 2 makes inside a
function (a ``tf.cond`` or ``while_loop`` of TF 2's control flow) or a gather of
rows cannot be fed from outside: the first feed of such a variable prints one
line naming it (``--v1_variables`` gives TF 1.x's variables, which any read takes
the feed through). A feed of a reference variable is TensorFlow's as before.
"""

from __future__ import annotations

import sys

# ops that read a variable's handle where a feed cannot reach
_UNREACHED = ("ResourceGather", "ResourceGatherNd", "If", "StatelessIf", "While",
              "StatelessWhile", "PartitionedCall", "StatefulPartitionedCall", "Case")  # fmt: skip
NOTE = (
    "note: feed_dict's value for the variable {name} reaches its reads in the graph, not "
    "{where} of TF 2's resource variables, which read the stored value; run with "
    "--v1_variables for TF 1.x's variables, which take a feed everywhere"
)
_noted: set = set()


def _feeds(variable, value) -> list:
    """(tensor, value) for each read of ``variable``'s handle in its graph."""
    readers = variable.handle.consumers()
    reads = [op.outputs[0] for op in readers if op.type == "ReadVariableOp"]
    unreached = sorted({op.type for op in readers if op.type in _UNREACHED})
    if unreached and variable.name not in _noted:
        _noted.add(variable.name)
        where = "its reads inside " + ", ".join(unreached) + " ops"
        print(NOTE.format(name=variable.name, where=where), file=sys.stderr)
    return [(read, value) for read in reads] or [(variable, value)]


def install(set_attribute) -> None:
    """Feeds of resource variables expanded to their reads (uninstall() puts the
    session's expansion list back)."""
    from tensorflow.python.client import session
    from tensorflow.python.ops import resource_variable_ops

    expansions = getattr(session._REGISTERED_EXPANSIONS, "_tf1_train_original", None)
    original = expansions or session._REGISTERED_EXPANSIONS
    default = original[-1]  # (object, fetch, feed, feed_list): everything else, unexpanded
    variable = resource_variable_ops.BaseResourceVariable
    ours = _Expansions([(variable, default[1], _feeds, default[3]), *original])
    ours._tf1_train_original = original
    set_attribute(session, "_REGISTERED_EXPANSIONS", ours)


class _Expansions(list):
    """The session's expansion list with the variables' feeds first."""
