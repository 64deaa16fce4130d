"""Keras 2's optimizer arguments that Keras 3 dropped: ``SGD(lr=0.01,
decay=1e-6, momentum=0.9)``, in TF1-era Keras code and notebooks (Hvass-Labs'
tutorials: ``Adam(lr=1e-3)``, ``RMSprop(lr=1e-3)``).

``lr=`` raises in Keras 3 ("Argument(s) not recognized: {'lr': 0.001}"):
``learning_rate=``. ``decay=`` is worse: Keras 3 warns once and ignores it,
so the learning rate stays where it started and training follows another
path, where Keras 2 used ``lr / (1 + decay * iterations)``; a schedule gives
those numbers again (``InverseTimeDecay(lr, decay_steps=1, decay_rate=decay)``).
TensorFlow 1.15.5's tf.keras took both (measured).
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.rules import BREAKS, CHANGES, _rule

ROW = "Keras 2's optimizer arguments `lr=` and `decay=`"
OPTIMIZERS = ("SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl")
_rule(
    "keras-optimizer-lr",
    BREAKS,
    "learning_rate= (Keras 3 refuses lr=: ValueError: Argument(s) not recognized)",
    "leaves it unchanged and reports nothing (it converts tf.* names, not keras.* arguments)",
    ROW,
)
_rule(
    "keras-optimizer-decay",
    CHANGES,
    "learning_rate=keras.optimizers.schedules.InverseTimeDecay({rate}, decay_steps=1, "
    "decay_rate={decay}): Keras 3 ignores decay= with a warning, so the rate never decays; "
    "Keras 2 used lr / (1 + decay * iterations), which this schedule gives",
    "leaves it unchanged and reports nothing",
    ROW,
)


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts = (resolve(node.func) or "").split(".")
        if not ("keras" in parts and "optimizers" in parts and parts[-1] in OPTIMIZERS):
            continue
        given = {k.arg: k.value for k in node.keywords if k.arg}
        construct = ast.unparse(node.func)
        if "lr" in given:
            yield node, "keras-optimizer-lr", f"{construct}(lr=...)", {}
        if "decay" in given:
            rate = given.get("lr", given.get("learning_rate"))
            fills = {"rate": ast.unparse(rate) if rate is not None else "the learning rate"}
            fills["decay"] = ast.unparse(given["decay"])
            yield node, "keras-optimizer-decay", f"{construct}(decay=...)", fills


V1_ROW = "a `tf.train` optimizer given to a Keras model's `compile`"
V1_KEY = "keras-compile-v1-optimizer"
_rule(
    V1_KEY,
    BREAKS,
    "keras.optimizers.{keras}(learning_rate=...) in {call}, with TF 1.x's defaults spelt out "
    "where they differ (Adam's epsilon 1e-8, Keras 3's 1e-7; RMSProp's mean square started "
    "at 1 with epsilon inside the root, Keras 3's at 0 with it outside: other first steps): "
    "TF 1.x's tf.keras wrapped a tf.train optimizer and ran its update; Keras 3's compile "
    "takes only its own (ValueError: Could not interpret optimizer identifier)",
    "leaves it unchanged and reports nothing",
    V1_ROW,
)
V1_PREFIXES = ("tensorflow.train.", "tensorflow.compat.v1.train.", "tensorflow.contrib.opt.")
KERAS_NAMES = {"GradientDescent": "SGD", "Momentum": "SGD", "RMSProp": "RMSprop"}


def _v1_optimizer(path: str) -> str:
    """The Keras name for a tf.train optimizer's path, or ''."""
    if not (path.startswith(V1_PREFIXES) and path.endswith("Optimizer")):
        return ""
    name = path.rsplit(".", 1)[-1][: -len("Optimizer")]
    return KERAS_NAMES.get(name, name or "SGD")


def compile_findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each ``m.compile(optimizer=tf.train.XOptimizer(...))``, or of a name bound to one
    (``opt = tf.train.AdamOptimizer(1e-3)``), the optimizer keyword or first argument."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            keras = _v1_optimizer(resolve(node.value.func) or "")
            bound.update({t.id: keras for t in node.targets if isinstance(t, ast.Name) and keras})
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "compile"):  # fmt: skip
            continue
        for value in [k.value for k in node.keywords if k.arg == "optimizer"] + node.args[:1]:
            if isinstance(value, ast.Call):
                keras = _v1_optimizer(resolve(value.func) or "")
            else:
                keras = bound.get(value.id, "") if isinstance(value, ast.Name) else ""
            if keras:
                fills = {"keras": keras, "call": ast.unparse(node.func)}
                yield value, V1_KEY, ast.unparse(value), fills
