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
