"""Model registry: name -> ``build(images, is_training, num_classes) -> logits``.

Every model creates its variables with ``get_variable`` (see layers.py), so
building it again under ``reuse=True`` shares them across towers.
"""

from __future__ import annotations

import importlib
from typing import Callable

ModelFn = Callable  # (images, is_training, num_classes) -> logits

_MODULES = {
    "mlp": "tf1_train.models.mlp",
    "lenet5": "tf1_train.models.lenet5",
}


def get_model(name: str) -> ModelFn:
    """Returns the build function of model ``name`` (validated by config)."""
    module = importlib.import_module(_MODULES[name])
    return module.build
