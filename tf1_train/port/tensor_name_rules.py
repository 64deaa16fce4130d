"""A variable looked up as a tensor by its name: ``graph.get_tensor_by_name(
"hidden/kernel:0")``, then fetched (``sess.run``, ``.eval()``) or computed
with. TF 1.x programs and notebooks did this to read weights back, to save
them with NumPy, or after rebuilding a model, since ``name:0`` was the
reference variable's value.

In a graph built on TF 2, ``name:0`` is the output of the resource
variable's ``VarHandleOp``: its handle, of dtype ``resource``. ``sess.run``
of it raises nothing and returns a NumPy array of the handle's bytes in
place of the weights (a ``np.save`` of it saves those); an op given it
raises "DataType resource not in list of allowed values", and NumPy on the
fetched array "did not contain a loop with signature" (this project's
tests/notebooks/tf1_notebook.ipynb stops there on TensorFlow 2.21). A graph
that TF 1.x wrote and ``import_meta_graph`` restored keeps its reference
variables, where ``name:0`` is still the value.

Found: ``get_tensor_by_name`` of a string ending in ``:0`` whose last name
is one that layers give their variables (``kernel``, ``bias``, ``weights``,
``gamma``, ``moving_mean``...) or that the program gives a variable
(``tf.Variable(..., name="W")``, ``tf.get_variable("W", ...)``, in any file).
"""

import ast
import re
from typing import Dict, Iterator, Sequence, Tuple

from tf1_train.port.rules import CHANGES, _rule

ROW = "a variable looked up by its tensor name"
# what tf.layers, Keras, tf-slim and the RNN cells name their variables
LAYER_VARIABLES = {"kernel", "bias", "weights", "biases", "gamma", "beta", "moving_mean"}
LAYER_VARIABLES |= {"moving_variance", "embeddings", "embedding", "depthwise_kernel"}
LAYER_VARIABLES |= {"pointwise_kernel", "recurrent_kernel", "global_step", "Variable"}
_NAME = re.compile(r"^(?:.*/)?([A-Za-z_][\w.-]*):0$")
_rule(
    "variable-tensor-name",
    CHANGES,
    "look the variable up instead of its tensor: [v for v in tf.global_variables() if "
    "v.name == '{name}'][0] (sess.run and .eval() of it give its value), or get_tensor_by_name"
    "('{read}') for the value as a read op; in a graph built on TF 2, '{name}' is the resource "
    "variable's handle: sess.run of it returns the handle's bytes in place of the weights, "
    "without an error, and an op given it raises 'DataType resource'; unedited: python -m "
    "tf1_train.compat --v1_variables (TF 1.x's reference variables, whose ':0' is the value); "
    "a graph TF 1.x wrote and import_meta_graph restored keeps its reference variables",
    "leaves it unchanged and reports nothing",
    ROW,
)


def variable_names(trees: Sequence[Tuple[ast.AST, object]]) -> Tuple[str, ...]:
    """The names the program gives its variables (``tf.Variable(name=)``,
    ``get_variable(name)``), last path part only, in every file."""
    names = set()
    for tree, resolve in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                made = resolve(node.func) or ""
                if made.endswith((".Variable", ".get_variable", ".VariableV1")):
                    names.update(_given_name(node, made.endswith(".get_variable")))
    return tuple(sorted(names))


def _given_name(call: ast.Call, first_is_name: bool) -> Iterator[str]:
    given = [k.value for k in call.keywords if k.arg == "name"]
    given += call.args[:1] if first_is_name else []
    for value in given:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            yield value.value.rsplit("/", 1)[-1]


def findings(
    tree: ast.AST, names: Sequence[str]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    known = LAYER_VARIABLES | set(names)
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get_tensor_by_name"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            continue
        name = node.args[0].value
        found = _NAME.match(name)
        if found and (found.group(1) in known or re.fullmatch(r"Variable_\d+", found.group(1))):
            read = f"{name[:-2]}/Read/ReadVariableOp:0"
            yield (
                node,
                "variable-tensor-name",
                f"get_tensor_by_name({name!r})",
                {
                    "name": name,
                    "read": read,
                },
            )
