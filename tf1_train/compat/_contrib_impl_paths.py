"""The implementation-module paths of ``tf.contrib.cudnn_rnn``, ``.rnn`` and
``.image`` that TF 1.x code bases imported, served by install():

- ``tensorflow.contrib.cudnn_rnn.python.ops.cudnn_rnn_ops`` (OpenSeq2Seq:
  ``from tensorflow.contrib.cudnn_rnn.python.ops import cudnn_rnn_ops``) and
  ``...python.layers.cudnn_rnn``: TF 1.15's constants, the two CPU cells and
  the cuDNN-only names, which raise when used (_contrib_cudnn.py);
- ``tensorflow.contrib.rnn.python.ops.core_rnn_cell``: ``_Linear`` and
  ``_linear`` (OpenSeq2Seq's group and factorised LSTMs: _contrib_linear.py),
  the projection and embedding wrappers and ``RNNCell``;
- ``tensorflow.contrib.image.python.ops.image_ops`` and ``.dense_image_warp``:
  the transforms and the warp (with its private ``_interpolate_bilinear``).

Every other name of those modules raises one line (_contrib_paths._served).
"""

import importlib

from tf1_train.compat._contrib_names import (
    CUDNN_CONSTANTS,
    CUDNN_KEPT,
    CUDNN_OPS_KEPT,
    IMAGE_GONE,
    IMAGE_KEPT,
)
from tf1_train.compat._contrib_paths import PACKAGE, _package, _served

_CUDNN_GONE = "the cuDNN layers and ops are kept as stand-ins that raise when used"
CORE_RNN_CELL = ("EmbeddingWrapper", "InputProjectionWrapper", "OutputProjectionWrapper",
                 "RNNCell")  # fmt: skip
CORE_RNN_CELL_PRIVATE = ("_BIAS_VARIABLE_NAME", "_Linear", "_WEIGHTS_VARIABLE_NAME", "_linear")
_IMAGE_OPS = tuple(n for n in IMAGE_KEPT if n != "dense_image_warp")


def _compat(module: str, name: str):
    return getattr(importlib.import_module(f"tf1_train.compat.{module}"), name)


def _cudnn(name: str):
    return _compat("_contrib_cudnn", "resolve")(name)


def _core_rnn_cell(name: str):
    if name == "RNNCell":
        return _compat("rnn_cell", "RNNCell")
    if name in CORE_RNN_CELL:
        return _compat("_contrib_core_cells", "KEPT")[name]
    return _compat("_contrib_linear", name)


def _image(name: str):
    if name in ("dense_image_warp", "_interpolate_bilinear"):
        return _compat("_contrib_image_warp", name)
    return _compat("_contrib_image", name)


# submodule -> {level: {module: (public names, private names, resolve, gone)}}
MODULES = {
    "cudnn_rnn": {
        "ops": {"cudnn_rnn_ops": (CUDNN_OPS_KEPT, (), _cudnn, _CUDNN_GONE)},
        "layers": {
            "cudnn_rnn": (tuple(sorted((*CUDNN_CONSTANTS, *CUDNN_KEPT))), (), _cudnn, _CUDNN_GONE)
        },
    },
    "rnn": {"ops": {"core_rnn_cell": (CORE_RNN_CELL, CORE_RNN_CELL_PRIVATE, _core_rnn_cell, "")}},
    "image": {
        "ops": {
            "image_ops": (_IMAGE_OPS, (), _image, IMAGE_GONE),
            "dense_image_warp": (("dense_image_warp",), ("_interpolate_bilinear",), _image, ""),
        }
    },
}


def sys_modules() -> dict:
    """{module name: module} for install(): each path's levels and modules."""
    modules = {}
    for submodule, levels in MODULES.items():
        python = f"{PACKAGE}.{submodule}.python"
        made = {}
        for level, served in levels.items():
            children = {}
            for module, (names, private, resolve, gone) in served.items():
                full = f"{python}.{level}.{module}"
                children[module] = modules[full] = _served(
                    full, names, resolve, private=(private, resolve), gone=gone
                )
            made[level] = modules[f"{python}.{level}"] = _package(f"{python}.{level}", **children)
        modules[python] = _package(python, **made)
    return modules


def kept(submodule: str, rest) -> bool:
    """Whether ``tensorflow.contrib.<submodule>.python[...]`` (``rest`` from
    ``python`` on) works after install()."""
    levels = MODULES.get(submodule, {})
    if rest[:1] != ["python"]:
        return False
    if len(rest) == 1:
        return bool(levels)
    served = levels.get(rest[1])
    if served is None or len(rest) == 2:
        return served is not None
    module = served.get(rest[2])
    return module is not None and (len(rest) == 3 or rest[3] in module[0] + module[1])


def attach(modules: dict) -> None:
    """Hangs each ``python`` level on its placeholder submodule (``tf.contrib.rnn.python``)."""
    for submodule in MODULES:
        modules[f"{PACKAGE}.{submodule}"].python = modules[f"{PACKAGE}.{submodule}.python"]
