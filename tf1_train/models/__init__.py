"""Model registry: name -> ``build(images, is_training, num_classes) -> logits``.

Every model creates its variables with ``get_variable`` (see layers.py), so
building it again under ``reuse=True`` shares them across towers.
"""

from __future__ import annotations

import importlib
from typing import Callable

ModelFn = Callable  # (images, is_training, num_classes) -> logits

_BUILDERS = {  # name -> (module, function)
    "mlp": ("tf1_train.models.mlp", "build"),
    "lenet5": ("tf1_train.models.lenet5", "build"),
    "resnet20": ("tf1_train.models.resnet", "build_resnet20"),
    "resnet32": ("tf1_train.models.resnet", "build_resnet32"),
    "resnet56": ("tf1_train.models.resnet", "build_resnet56"),
}


def get_model(name: str) -> ModelFn:
    """Returns the build function of model ``name`` (validated by config)."""
    module, function = _BUILDERS[name]
    return getattr(importlib.import_module(module), function)
