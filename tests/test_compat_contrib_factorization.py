"""``tf.contrib.factorization``'s k-means after tf1_train.compat.install()
(tf1_train/compat/_contrib_factorization.py), held to TensorFlow 1.15.5's own module
(tests/goldens/contrib_factorization_tf115.json,
scripts/make_contrib_factorization_goldens.py)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import run_cli
from contrib_factorization_cases import GRAPHS, graph_outcome, outcomes

from tf1_train.port import scan

GOLDEN = os.path.join(os.path.dirname(__file__), "goldens", "contrib_factorization_tf115.json")


@pytest.fixture(scope="module")
def golden():
    with open(GOLDEN) as f:
        return json.load(f)


def test_every_case_gives_tf_1_15_5s_centres_scores_and_distances(installed, tmp_path, golden):
    found = outcomes(tf.compat.v1, str(tmp_path))
    assert sorted(found) == sorted(k for k in golden if k != "versions")
    for case, outcome in found.items():
        assert sorted(outcome) == sorted(golden[case]), case
        for key, value in outcome.items():
            np.testing.assert_allclose(value, golden[case][key], rtol=1e-5, atol=1e-5,
                                       err_msg=f"{case}: {key}")  # fmt: skip


def test_core_kmeans_starts_elsewhere_which_is_why_contribs_is_served(installed, golden):
    """TensorFlow 2.21's own KMeans takes the seed through the graph seed."""
    v1 = tf.compat.v1
    contrib = v1.contrib.factorization.KMeans
    try:
        v1.contrib.factorization.KMeans = __import__(
            "tensorflow.python.ops.clustering_ops", fromlist=["KMeans"]
        ).KMeans
        core = graph_outcome(v1, *GRAPHS["random_seeded_graph"])
    finally:
        v1.contrib.factorization.KMeans = contrib
    assert not np.allclose(core["centres"], golden["random_seeded_graph"]["centres"])


def test_gmm_and_wals_are_one_line_each(installed):
    for name in ("GMM", "gmm", "WALSModel", "WALSMatrixFactorization"):
        with pytest.raises(AttributeError, match="GaussianMixture"):
            getattr(tf.compat.v1.contrib.factorization, name)


PROGRAM = """import json, sys
sys.path.insert(0, {tests!r})
import tensorflow as tf
from contrib_factorization_cases import GRAPHS, graph_outcome
print("variables =", type(tf.Variable(0.0)).__name__)
print(json.dumps({{name: graph_outcome(tf, *case) for name, case in GRAPHS.items()}}))
"""


def test_on_reference_variables_the_graphs_start_and_train_as_on_tf_1_15_5(tmp_path, golden):
    """``--v1 --v1_variables --v1_seeds``: contrib's constant start, TF 1.x's variables."""
    (tmp_path / "prog.py").write_text(PROGRAM.format(tests=os.path.dirname(__file__)))
    out = run_cli(["--v1", "--v1_variables", "--v1_seeds", "prog.py"], module="tf1_train.compat",
                  cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "variables = RefVariable" in out.stdout
    found = json.loads(out.stdout.strip().splitlines()[-1])
    for case, outcome in found.items():
        for key, value in outcome.items():
            np.testing.assert_allclose(value, golden[case][key], rtol=1e-5, atol=1e-5,
                                       err_msg=f"{case}: {key}")  # fmt: skip


def test_the_scan_says_the_k_means_works_under_compat_and_the_rest_breaks(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import tensorflow as tf\n"
        "from tensorflow.contrib.factorization import KMeans, GMM\n"
        "m = tf.contrib.factorization.KMeansClustering(3)\n"  # served: not reported
        "w = tf.contrib.factorization.WALSModel(4, 5, 2)\n"
    )
    found = [(f.line, f.construct.rsplit(".", 1)[-1], f.severity)
             for f in scan.scan([str(tmp_path)], compat=True).findings]  # fmt: skip
    assert sorted(found) == [(2, "GMM", "breaks"), (2, "KMeans", "works"),
                             (4, "WALSModel", "breaks")]  # fmt: skip
