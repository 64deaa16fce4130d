"""Export the UCI digits (scikit-learn's copy) to tf1_train/data/digits.npz.

Run once by a maintainer; scikit-learn is not a dependency of tf1_train. The
CSV comes from ``sklearn/datasets/data/digits.csv.gz`` (inside an installed
scikit-learn or its wheel): 1,797 rows of 64 pixels (0..16) and a label.

    python scripts/export_digits.py path/to/digits.csv.gz
"""

import gzip
import sys

import numpy as np

TEST_SIZE = 360  # 20% held out, fixed forever so accuracies stay comparable.


def main(csv_path: str, out_path: str = "tf1_train/data/digits.npz") -> None:
    with gzip.open(csv_path, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.int64)
    images = rows[:, :64].reshape(-1, 8, 8, 1).astype(np.uint8)
    labels = rows[:, 64].astype(np.uint8)
    order = np.random.RandomState(0).permutation(len(labels))
    test, train = order[:TEST_SIZE], order[TEST_SIZE:]
    np.savez_compressed(
        out_path,
        train_images=images[train],
        train_labels=labels[train],
        test_images=images[test],
        test_labels=labels[test],
    )
    print(f"wrote {out_path}: {len(train)} train, {len(test)} test")


if __name__ == "__main__":
    main(*sys.argv[1:])
