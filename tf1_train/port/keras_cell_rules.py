"""A Keras cell given to TF 1.x's RNN functions: ``tf.nn.dynamic_rnn(
tf.keras.layers.SimpleRNNCell(n), x, dtype=tf.float32)`` (and
``static_rnn``, ``bidirectional_dynamic_rnn``, ``static_bidirectional_rnn``),
which TF 1.15.5's Keras cells ran. Without ``initial_state`` those functions
ask the cell for its zero state with ``cell.get_initial_state(inputs=None,
batch_size=..., dtype=...)``, and Keras 3's cells take no ``inputs``: the
graph build raises ``TypeError: SimpleRNNCell.get_initial_state() got an
unexpected keyword argument 'inputs'`` (LSTMCell and GRUCell alike), under
``python -m tf1_train.compat --v1`` as without it. Given an
``initial_state``, it builds.

Found: a call of one of those functions (any TensorFlow path) whose cell
argument is a Keras cell constructed there or bound to a name in the file,
with no initial state given.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.names import last_name
from tf1_train.port.rules import BREAKS, V1, _rule

ROW = "a Keras cell in `dynamic_rnn`"
KEY = "keras-cell-in-v1-rnn"
# Keras' cell -> TF 1.x's cell of the same equations (tf.compat.v1.nn.rnn_cell)
CELLS = {"SimpleRNNCell": "BasicRNNCell", "LSTMCell": "LSTMCell", "GRUCell": "GRUCell"}
_rule(
    KEY,
    BREAKS,
    "tf.compat.v1.nn.rnn_cell.{tf1} (TF 1.x's cell: python -m tf1_train.compat or "
    "tf1_train.compat.install() serves it), or a Keras RNN layer, tf.keras.layers.RNN(cell, "
    "return_sequences=True, return_state=True)(x), or pass initial_state=: without one "
    "{function} calls cell.get_initial_state(inputs=...), which Keras 3's {name} does not "
    "take (TypeError: got an unexpected keyword argument 'inputs')",
    "leaves it unchanged and reports nothing",
    ROW,
)
FUNCTIONS = ("dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn")
STATES = ("initial_state", "initial_state_fw", "initial_state_bw")
KERAS = ("tensorflow.keras.layers.", V1 + "keras.layers.", "keras.layers.")


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each RNN function call given a Keras cell and no initial state (at the call)."""
    bound = {
        name: cell
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for cell in [_keras_cell(node.value, resolve)]
        if cell
        for name in map(last_name, node.targets)
        if name
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        path = resolve(node.func) or ""
        function = path.rsplit(".", 1)[-1]
        if not path.startswith("tensorflow.") or function not in FUNCTIONS:
            continue
        if any(k.arg in STATES for k in node.keywords):
            continue
        cells = node.args[:2] + [k.value for k in node.keywords if k.arg and "cell" in k.arg]
        for cell in cells:
            name = _keras_cell(cell, resolve) or bound.get(last_name(cell) or "")
            if name:
                fills = {"name": name, "tf1": CELLS[name], "function": function}
                yield node, KEY, f"{ast.unparse(node.func)}({ast.unparse(cell)}, ...)", fills
                break


def _keras_cell(node: ast.AST, resolve) -> str:
    """The Keras cell class ``node`` constructs, or ''."""
    if not isinstance(node, ast.Call):
        return ""
    path = resolve(node.func) or ""
    name = path.rsplit(".", 1)[-1]
    return name if path.startswith(KERAS) and name in CELLS else ""
