"""What every input source provides, and the in-memory source most use.

A source yields uint8 images (HWC) and int labels; the pipeline
(``pipeline.py``) shuffles, batches, splits per tower and normalises.
"""

from __future__ import annotations

import dataclasses
from typing import Tuple

import numpy as np


@dataclasses.dataclass(frozen=True)
class ArraySource:
    """A dataset small enough to hold in host memory as numpy arrays."""

    name: str
    train_images: np.ndarray  # [N, H, W, C] uint8
    train_labels: np.ndarray  # [N] integer
    test_images: np.ndarray
    test_labels: np.ndarray
    num_classes: int
    scale: float = 255.0  # pixel value that maps to 1.0

    @property
    def image_shape(self) -> Tuple[int, int, int]:
        return tuple(int(d) for d in self.train_images.shape[1:])

    @property
    def num_train(self) -> int:
        return int(self.train_labels.shape[0])

    @property
    def num_test(self) -> int:
        return int(self.test_labels.shape[0])
