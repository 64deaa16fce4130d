"""The embedded UCI digits: 1,797 real 8x8 handwritten digits, pixels 0..16.

Stored in ``digits.npz`` next to this file (exported once from scikit-learn's
copy by scripts/export_digits.py) with a fixed 1,437 / 360 train/test split.
"""

from __future__ import annotations

import importlib.resources

import numpy as np

from tf1_train.data.source import ArraySource

MAX_PIXEL = 16.0


def load() -> ArraySource:
    """Reads the packaged arrays (no pickles)."""
    path = importlib.resources.files("tf1_train.data") / "digits.npz"
    with path.open("rb") as f, np.load(f, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return ArraySource(
        name="digits",
        train_images=arrays["train_images"],
        train_labels=arrays["train_labels"],
        test_images=arrays["test_images"],
        test_labels=arrays["test_labels"],
        num_classes=10,
        scale=MAX_PIXEL,
    )
