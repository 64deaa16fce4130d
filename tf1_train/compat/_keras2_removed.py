"""Keras 2's preprocessing names that Keras 3 left out of ``keras.preprocessing``:
``ImageDataGenerator`` and its iterators and random transforms, the
``TimeseriesGenerator``, ``skipgrams``, the whole ``keras.preprocessing.text``
module (``Tokenizer``). TF 1.x programs that used Keras 2 beside their graph
(openai/glow's MNIST and CIFAR-10 loaders: ``from keras.preprocessing.image
import ImageDataGenerator``) raise ImportError on the first line.

Keras 3 still ships Keras 2's code for them (``keras.src.legacy.preprocessing``),
which TensorFlow 2.21 serves as ``tf.keras.preprocessing``, but with its image
transforms changed (_keras2_image.py says how). install() puts the names back
under Keras 2's paths: the image transforms and ``ImageDataGenerator`` as
Keras 2 computed them (_keras2_image.py), the rest as Keras 3's copies;
tests hold their outputs to Keras 2.2.4's on TensorFlow 1.15.5.
"""

from __future__ import annotations

import importlib
import sys

LEGACY = "keras.src.legacy.preprocessing"
# Keras 2's keras.preprocessing.X names that Keras 3's keras.preprocessing.X lacks
NAMES = {
    "image": ("DirectoryIterator", "ImageDataGenerator", "Iterator", "NumpyArrayIterator",
              "apply_affine_transform", "apply_brightness_shift", "apply_channel_shift",
              "random_brightness", "random_channel_shift", "random_rotation", "random_shear",
              "random_shift", "random_zoom"),
    "sequence": ("TimeseriesGenerator", "make_sampling_table", "skipgrams"),
}  # fmt: skip
MODULES = {"keras.preprocessing.text": LEGACY + ".text"}  # Keras 3 has no such module
# the image names whose numbers Keras 3's copy changed (served from _keras2_image.py)
TRANSFORMS = ("ImageDataGenerator", "apply_affine_transform", "apply_brightness_shift",
              "random_brightness", "random_rotation", "random_shear", "random_shift",
              "random_zoom")  # fmt: skip
DESCRIBE = (
    "works after tf1_train.compat.install(), which puts Keras 2's preprocessing back into "
    "keras.preprocessing, its image transforms as Keras 2 computed them"
)


def served(path: str) -> bool:
    """Whether the ``keras.preprocessing`` path works after install()."""
    if any(path == m or path.startswith(m + ".") for m in MODULES):
        return True
    module, _, name = path.rpartition(".")
    return name in NAMES.get(module.rsplit(".", 1)[-1], ()) and module.startswith(
        "keras.preprocessing."
    )


def install(set_) -> None:
    """Each name and module put back with ``set_`` (so uninstall() takes it out)."""
    try:
        preprocessing = importlib.import_module("keras.preprocessing")
    except ImportError:  # no Keras 3: nothing of it to put back
        return
    from tf1_train.compat import _keras2_image  # Keras 2's transforms, not Keras 3's copy's

    for submodule, names in NAMES.items():
        module = importlib.import_module(f"keras.preprocessing.{submodule}")
        legacy = importlib.import_module(f"{LEGACY}.{submodule}")
        for name in names:
            if name not in module.__dict__:
                set_(module, name, _keras2_image.NAMES.get(name) or getattr(legacy, name))
    for old, new in MODULES.items():
        if old not in sys.modules:
            module = importlib.import_module(new)
            set_(sys.modules, old, module)
            set_(preprocessing, old.rsplit(".", 1)[-1], module)
