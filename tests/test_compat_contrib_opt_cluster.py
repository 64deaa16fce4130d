"""tf.contrib.opt's elastic and model averaging after
tf1_train.compat.install(), on a gRPC ps/worker cluster, held to TensorFlow
1.15.5.

The programs of tests/contrib_opt_cluster_cases.py (one ps and two workers
as in-process servers on 127.0.0.1, each worker a graph and a
MonitoredTrainingSession with the optimizer's hook, stepping in turn, or at
once where the optimizer makes them wait for each other) must
compute what TF 1.15.5 computed (tests/goldens/contrib_opt_cluster_tf115.npz):
every variable after each step (the workers' copies and slots, their views
of the center, the center on the ps, the global step), the collections each
variable is in and what the swapping saver writes. They start servers, which
live as long as their process, so they run in a process of their own, on
TF 2's resource variables and on TF 1.x's reference ones.
"""

import contrib_opt_cluster_cases as cases
import goldens_tf115
import pytest

from tf1_train.compat import _contrib_names


@pytest.fixture(scope="module")
def golden() -> dict:
    return goldens_tf115.load("contrib_opt_cluster_tf115.npz")


def test_the_goldens_are_tf_1_15_5s_and_every_case_has_them(golden):
    assert str(golden["version"]) == "1.15.5"
    assert goldens_tf115.case_names(golden) == sorted(cases.CASES)
    served = set(_contrib_names.OPT_KEPT)
    averaging = {"ElasticAverageCustomGetter", "ElasticAverageOptimizer",
                 "ModelAverageCustomGetter", "ModelAverageOptimizer"}  # fmt: skip
    assert averaging <= served
    assert served <= set(golden["names"])  # TF 1.15.5's dir() of the module


OPTIMIZERS = sorted(set(cases.CASES) - {"unplaced_shared_queue"})


@pytest.mark.parametrize("v1_variables", [False, True], ids=["resource", "reference"])
def test_workers_and_center_move_as_on_tf_1_15_5(golden, tmp_path, v1_variables):
    got = goldens_tf115.run_on_reference_variables(
        "contrib_opt_cluster_cases", "opt", OPTIMIZERS, tmp_path, v1_variables
    )
    for name in OPTIMIZERS:
        goldens_tf115.assert_matches(
            goldens_tf115.of_case(got, name), goldens_tf115.of_case(golden, name)
        )


def test_an_unplaced_queue_was_one_for_all_workers_on_tf_1_15_5_and_is_not_on_tf_2(
    golden, tmp_path
):
    """TF 1.15's placer put an op without a device on the cluster's first
    device (the ps), the same for every worker; TF 2.21's puts it on the
    session's own task. A queue shared by name was one queue; now each
    worker has its own, and a token never arrives (the synchronous start's
    barrier waited forever until its queues were pinned to the ps)."""
    name = "unplaced_shared_queue"
    got = goldens_tf115.run_on_reference_variables(
        "contrib_opt_cluster_cases", "opt", [name], tmp_path, v1_variables=False
    )
    tf115, tf2 = goldens_tf115.of_case(golden, name), goldens_tf115.of_case(got, name)
    assert tf115["unplaced/reached"] and tf115["on_ps/reached"]
    assert not tf2["unplaced/reached"] and tf2["on_ps/reached"]


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_reports_an_unplaced_shared_queue_with_or_without_compat(tmp_path, compat):
    """install() changes no placement: the verdict stays ``breaks``."""
    from tf1_train.port import scan

    (tmp_path / "trainer.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "server = tf.train.Server(cluster, job_name='worker', task_index=task)\n"
        "queue = tf.FIFOQueue(2, [tf.bool], shapes=[[]], shared_name='start')\n"
    )
    found = [f for f in scan.scan([str(tmp_path)], compat=compat).findings if f.line == 3]
    assert [(f.rule, f.severity) for f in found] == [("unplaced-shared-queue", "breaks")]


@pytest.mark.parametrize("session, reported", [("tf.Session()", False),
                                               ("tf.Session(server.target)", True)])  # fmt: skip
def test_a_shared_queue_run_by_an_in_process_session_is_not_reported(tmp_path, session, reported):
    """handson-ml's chapter 12 reads a CSV through a shared-name queue in a
    plain tf.Session() beside its cluster cells: no cluster runs that graph."""
    from tf1_train.port import scan

    (tmp_path / "reader.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "server = tf.train.Server(cluster, job_name='worker', task_index=0)\n"
        "queue = tf.RandomShuffleQueue(10, 2, [tf.float32], shared_name='instances')\n"
        f"with {session} as sess:\n    sess.run(queue.close())\n"
    )
    found = [f.rule for f in scan.scan([str(tmp_path)]).findings if f.line == 3]
    assert found == (["unplaced-shared-queue"] if reported else [])
