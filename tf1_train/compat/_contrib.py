"""Importable ``tensorflow.contrib.quantize`` and ``tensorflow.contrib.training``
whose every name raises on use.

TF-slim's own trainer and evaluator in tensorflow/models (their last, tf_slim
+ ``tensorflow.compat.v1`` versions) import ``tensorflow.contrib.quantize`` at
the top and call it only under ``--quantize_delay``/``--quantize``; its nets
factory imports NASNet, which imports ``tensorflow.contrib.training`` for
``HParams``. ``tf.contrib`` went in TensorFlow 2.0, so such programs die at
import whatever they were asked to do. These placeholders let the import
succeed and make any use fail with one line that says what is gone; nothing
of contrib is re-implemented.

Only these two submodules: ``import tensorflow.contrib.slim`` (or any other)
still raises ``ModuleNotFoundError``, so the common ``try: ... except
ImportError: import tf_slim`` fallbacks keep working, and ``from
tensorflow.contrib.training import HParams`` raises ``ImportError`` as before.
"""

import types

PACKAGE = "tensorflow.contrib"
PLACEHOLDERS = {
    "quantize": "quantization-aware training is in the tensorflow-model-optimization "
    "package (tfmot.quantization.keras), for Keras models",
    "training": "HParams: a dataclass or a dict; the input helpers: tf.data",
}


def _gone(module: str, hint: str):
    """A module ``__getattr__`` that refuses every name with what replaced it.
    AttributeError, so ``from module import name`` becomes ImportError."""

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{module}.{name} was removed with tf.contrib in TensorFlow 2.0; "
            f"tf1_train.compat makes '{module}' importable, not its contents ({hint})"
        )

    return __getattr__


def placeholder_modules() -> dict:
    """``{module name: module}`` for sys.modules: the package and its placeholders."""
    package = types.ModuleType(PACKAGE, "tf.contrib placeholders of tf1_train.compat")
    package.__path__ = []  # a package with no files: other submodules stay missing
    package.__getattr__ = _gone(PACKAGE, "see docs/PORTING.md `tf.contrib.*`")
    modules = {PACKAGE: package}
    for name, hint in PLACEHOLDERS.items():
        full = f"{PACKAGE}.{name}"
        module = types.ModuleType(full, f"placeholder: every name raises ({hint})")
        module.__getattr__ = _gone(full, hint)
        setattr(package, name, module)
        modules[full] = module
    return modules
