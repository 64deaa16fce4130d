"""A Keras initializer given a seed: TF 1.x's draws, Keras 3's numbers.

On TF 1.x, ``tf.keras.initializers.glorot_uniform(seed=1)`` (``he_normal``,
``VarianceScaling``, ``RandomNormal``, ...) was TensorFlow's own v1
initializer, a stateful random op seeded by the graph seed and that seed.
On TensorFlow 2.16+ it is Keras 3's, which draws from its own generator: the
same distribution, other numbers, so a TF1 program seeded for repeatable
weights starts elsewhere than it did (measured against TensorFlow 1.15.5:
every Keras initializer tried differs, while ``tf.glorot_uniform_initializer``,
``tf.variance_scaling_initializer``, contrib's ``xavier_initializer`` and the
other v1 initializers draw TF 1.15.5's numbers; tests/test_compat_contrib_tf115.py
holds the v1 ones). Found: a call of a Keras initializer with a ``seed=``.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.rules import BREAKS, CHANGES, _rule

ROW = "a Keras initializer with a seed"
KEY = "keras-initializer-seed"
_rule(
    KEY,
    CHANGES,
    "Keras 3 draws other numbers for the same seed than TF 1.x's tf.keras did (the same "
    "distribution): for TF 1.x's initial weights use the v1 initializer of the same name "
    "(tf.compat.v1.glorot_uniform_initializer, he_normal -> "
    "tf.compat.v1.variance_scaling_initializer(2.0, 'fan_in', 'truncated_normal'), "
    "random_normal_initializer, ...), which draw TF 1.15's numbers for the same seeds",
    "leaves it unchanged and reports nothing",
    ROW,
)
ROOTS = ("tensorflow.keras.initializers.", "tensorflow.compat.v1.keras.initializers.",
         "keras.initializers.")  # fmt: skip


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        path = resolve(node.func) or ""
        seeded = any(
            k.arg == "seed" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
            for k in node.keywords
        )
        if seeded and path.startswith(ROOTS):
            served = path.startswith(V1_ROOT)
            yield (
                node,
                KEY,
                ast.unparse(node.func),
                {"installed_works": V1_SERVED} if served else {},
            )


V1_ROOT = "tensorflow.compat.v1.keras.initializers."  # tf.keras's too under --v1
V1_SERVED = (
    "works after tf1_train.compat.install(): tf.compat.v1.keras.initializers (tf.keras's under "
    "--v1) are TF 1.15's classes again, which draw TF 1.15's numbers for the same seed"
)


# ---- v.initialized_value(): TF 1.x's initial values that read another variable ----
ROW_INITIALIZED = "`v.initialized_value()`"
KEY_INITIALIZED = "initialized-value"
_rule(
    KEY_INITIALIZED,
    BREAKS,
    "TensorFlow 2.21's resource variables (what get_variable and tf.compat.v1.Variable make) "
    "raise a bare NotImplementedError on initialized_value(): use v.initial_value, the same "
    "numbers while the initializers run together (global_variables_initializer), or "
    "tf.zeros_like(v.initial_value) for a gradient accumulator; unmodified: "
    "tf1_train.compat.install() gives resource variables TF 1.15's method",
    "leaves it unchanged and reports nothing",
    ROW_INITIALIZED,
)


def initialized_value_findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict]]:
    """Each ``<expression>.initialized_value()`` call (no arguments: the method)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "initialized_value"
            and not node.args
            and not node.keywords
        ):
            yield node, KEY_INITIALIZED, ast.unparse(node), {}
