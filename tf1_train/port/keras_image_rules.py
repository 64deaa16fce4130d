"""``tf.keras.preprocessing.image``'s random transforms, whose numbers moved.

On TF 1.x ``tf.keras.preprocessing.image`` was keras_preprocessing 1.x, as
Keras 2's ``keras.preprocessing.image`` was. On TensorFlow 2.21 it is Keras
3's copy of that code, whose affine transform swaps x and y, turns about
another centre and whitens otherwise (tf1_train/compat/_keras2_image.py), so
the same ``ImageDataGenerator(rotation_range=15, width_shift_range=0.1)``
gives other images from the same seed, and a model trains on other data.
A generator that only flips, rescales or centres gives the same numbers and is
not reported; the transform functions always are.
"""

import ast
from typing import Callable, Dict, Iterator, Optional, Tuple

from tf1_train.compat._keras2_removed import TRANSFORMS
from tf1_train.port.rules import CHANGES, _rule

ROW = "`tf.keras.preprocessing.image`'s random transforms"
KEY = "keras-image-transforms"
_rule(
    KEY,
    CHANGES,
    "{construct} transforms images otherwise than on TF 1.x: TensorFlow 2.21's "
    "tf.keras.preprocessing.image is Keras 3's copy of keras_preprocessing, which swaps x and y "
    "of each affine transform (rotations turn the other way, a row shift moves columns), turns "
    "about (h/2 - 0.5, w/2 - 0.5) instead of (h/2 + 0.5, w/2 + 0.5) and whitens (ZCA) "
    "otherwise; TF 1.x's transforms: from keras.preprocessing.image import {name} under "
    "python -m tf1_train.compat (Keras 2's, held to TF 1.15.5's); a TF2 port: "
    "keras.layers.RandomRotation / RandomTranslation / RandomZoom, and a new baseline",
    "leaves it unchanged and reports nothing",
    ROW,
)
MODULES = tuple(f"tensorflow.{v}keras.preprocessing.image." for v in ("", "compat.v1."))
FUNCTIONS = tuple(n for n in TRANSFORMS if n != "ImageDataGenerator")
# ImageDataGenerator's arguments whose transforms moved
MOVED = ("rotation_range", "width_shift_range", "height_shift_range", "shear_range",
         "zoom_range", "brightness_range", "zca_whitening")  # fmt: skip
# its first parameters in order (keras_preprocessing 1.x's, Keras 3's too), for positional calls
POSITIONS = ("featurewise_center", "samplewise_center", "featurewise_std_normalization",
             "samplewise_std_normalization", "zca_whitening", "zca_epsilon", "rotation_range",
             "width_shift_range", "height_shift_range", "brightness_range", "shear_range",
             "zoom_range")  # fmt: skip


def _moves(call: ast.Call) -> bool:
    """Whether the generator is given a transform that moved (not a literal 0, False or None).

    A positional call names its arguments by TF 1.x's order, so ``zca_epsilon`` or
    ``channel_shift_range`` given by position is not taken for a transform that moved.
    """
    given = {k.arg: k.value for k in call.keywords if k.arg}
    given.update(zip(POSITIONS, call.args))
    values = [given[a] for a in MOVED if a in given]
    return any(not (isinstance(v, ast.Constant) and not v.value) for v in values)


def findings(
    tree: ast.AST, resolve: Callable[[ast.AST], Optional[str]]
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each call of a moved transform function, and each generator given a moved transform."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        path = resolve(node.func) or ""
        module = next((m for m in MODULES if path.startswith(m)), None)
        name = path[len(module) :] if module else ""
        if name in FUNCTIONS or (name == "ImageDataGenerator" and _moves(node)):
            construct = ast.unparse(node.func)
            yield node, KEY, construct, {"construct": construct, "name": name}
