"""A Keras model trained, evaluated or asked for predictions with eager
execution off: ``model.fit(X, y)`` in a program that calls
``tf.compat.v1.disable_eager_execution`` (or runs through ``python -m tf1_train.compat``,
which turns it off), as TF 1.x programs and notebooks mixed ``tf.keras``
models with their Session code (handson-ml's reproducibility notebook).

TF 1.x's Keras ran in graph mode. Keras 3 trains only eagerly: ``fit``,
``evaluate`` and ``predict`` raise "tf.data.Dataset only supports
Python-style iteration in eager mode or within tf.function",
``predict_on_batch`` "'SymbolicTensor' object has no attribute 'numpy'", and
``train_on_batch`` and ``test_on_batch`` return a graph tensor that nothing
runs: the loop trains nothing and logs a tensor for its loss
(tests/legacy_scripts/keras_graph_mode_style.py).

Found: one of those methods called on a name the file binds to a Keras model
(``keras.Sequential(...)``, ``keras.Model(...)``, ``load_model``, an instance
of a class of the file derived from ``keras.Model``) or compiles
(``m.compile(optimizer=..., loss=...)``), in a program with eager execution
off.
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.names import last_name
from tf1_train.port.rules import BREAKS, _rule

ROW = "a Keras model's `fit` with eager execution off"
KEY = "keras-fit-graph-mode"
RUNS = ("fit", "evaluate", "predict", "predict_on_batch", "train_on_batch", "test_on_batch")
MODELS = ("Sequential", "Model", "load_model", "clone_model")
_rule(
    KEY,
    BREAKS,
    "run the Keras part in a program of its own that keeps eager execution on (a notebook's "
    "Keras cells apart from its Session cells), or build the model's loss and train op in the "
    "v1 graph (model(x) on a placeholder works) and run them with a Session: with eager "
    "execution off (tf.compat.v1.disable_eager_execution, disable_v2_behavior(), python -m "
    "tf1_train.compat), Keras 3's {method} {what}; TF 1.x's Keras ran in graph mode",
    "leaves it unchanged and reports nothing",
    ROW,
)
WHAT = {
    "train_on_batch": "returns a graph tensor that nothing runs: nothing is trained",
    "test_on_batch": "returns a graph tensor that nothing runs, not a loss",
    "predict_on_batch": "raises ('SymbolicTensor' object has no attribute 'numpy')",
}
RAISES = "raises (tf.data.Dataset only supports Python-style iteration in eager mode)"


def findings(
    tree: ast.AST, resolve, eager_off: bool
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    if not eager_off:
        return
    models = _models(tree, resolve)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in RUNS
            and last_name(node.func.value) in models
        ):
            method = node.func.attr
            what = {"method": method, "what": WHAT.get(method, RAISES)}
            yield node, KEY, ast.unparse(node.func), what


def _models(tree: ast.AST, resolve) -> Set[str]:
    """Names (last parts) the file binds to Keras models or compiles as one."""
    classes = {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef) and any(_is_keras_model(resolve(b)) for b in n.bases)
    }
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            made = isinstance(func, ast.Name) and func.id in classes
            if made or _is_keras_model(resolve(func)):
                names.update(filter(None, (last_name(t) for t in node.targets)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            keywords = {k.arg for k in node.keywords}
            if node.func.attr == "compile" and keywords & {"loss", "optimizer"}:
                names.add(last_name(node.func.value))
    return names - {None}


def _is_keras_model(path) -> bool:
    parts = (path or "").split(".")
    return "keras" in parts and parts[-1] in MODELS
