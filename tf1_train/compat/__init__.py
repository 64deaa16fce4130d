"""Legacy ``tf.compat.v1.layers`` code on TensorFlow 2.16+ with Keras 3.

``tf1_train.compat.layers`` is a drop-in for the functional legacy layers
(same signatures, defaults, variable names, collections and numbers; the
goldens in tests/goldens/compat_layers hold it to the real ones). Importing
this package changes nothing; ``install()`` (or ``python -m tf1_train.compat
script.py ...``) makes unmodified legacy programs find these layers;
``uninstall()`` puts TensorFlow's names back. docs/LEGACY_LAYERS.md
describes both routes.
"""

from tf1_train.compat._install import install, is_installed, uninstall

__all__ = ["install", "is_installed", "uninstall"]
