"""TF 1.x's Estimator on a TF_CONFIG cluster: between-graph replication
without a strategy, and a strategy through the distribute coordinator's
independent-worker mode (tf1_train/compat/_estimator_bridge.py). Each task
is a process of tests/legacy_scripts/estimator_distributed_style.py run
unmodified through ``python -m tf1_train.compat --v1``, on 127.0.0.1 with
ports picked now."""

import json
import pathlib
import time

import pytest
from conftest import COMPAT, ROOT, run_legacy_script, start_cli

from tf1_train.cluster import spec

PROGRAM = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "estimator_distributed_style.py"
BATCH = "25"


def _run_cluster(tmp_path, route: str, tasks: tuple, serving: tuple = ()) -> dict:
    """Runs ``tasks`` (and ``serving`` tasks, killed once the others end):
    each task's ``name = value`` lines.

    With a ps, the other tasks start once the chief has saved its first
    checkpoint, as a launcher that starts the chief first would have them:
    a worker that asks the ps before the chief has initialised the variables
    sleeps 30 s before it asks again (SessionManager's recovery_wait_secs,
    which the Estimator's MonitoredTrainingSession leaves at 30), and the
    ps_strategy test took 6 s or 36 s by the luck of the start."""
    ports = iter(spec.free_ports(len(tasks) + len(serving)))
    cluster = {task: [f"127.0.0.1:{next(ports)}"] for task in tasks + serving}
    model_dir = tmp_path / "model"
    procs = {}
    try:
        for task in serving + tasks:
            if serving and task != "chief" and task not in serving:
                _wait_for_first_checkpoint(model_dir, procs["chief"])
            config = {"cluster": cluster, "task": {"type": task, "index": 0}}
            env = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_CONFIG": json.dumps(config)}
            procs[task] = start_cli(
                ["--v1", str(PROGRAM), str(model_dir), route, BATCH], tmp_path / f"{task}.out",
                COMPAT, env, tmp_path, tmp_path / f"{task}.err",
            )  # fmt: skip
        for task in tasks:
            code = procs[task].wait(timeout=240)
            assert code == 0, (tmp_path / f"{task}.err").read_text()[-3000:]
    finally:
        for proc in procs.values():  # a ps task serves until killed, as on TF 1.x
            proc.kill()
            proc.wait()
    return {
        task: dict(line.split(" = ", 1) for line in (tmp_path / f"{task}.out").read_text()
                   .splitlines() if " = " in line)
        for task in tasks
    }  # fmt: skip


def _wait_for_first_checkpoint(model_dir: pathlib.Path, chief) -> None:
    deadline = time.monotonic() + 120
    while not (model_dir / "checkpoint").exists():
        assert chief.poll() is None, "the chief ended before its first checkpoint"
        assert time.monotonic() < deadline, "no checkpoint from the chief in 120 s"
        time.sleep(0.1)


def test_a_tf_config_cluster_trains_between_graph_over_grpc(tmp_path):
    # Estimator's parameter-server route without a strategy: ps, chief and
    # worker (measured: 200 + 401 steps = global step 601, variables on ps).
    values = _run_cluster(tmp_path, "cluster", ("chief", "worker"), serving=("ps",))
    ran, saved = {}, {}
    for task in ("chief", "worker"):
        assert json.loads(values[task]["devices"]) == ["/job:ps/task:0"]
        assert values[task]["task"] == task + " 0"
        ran[task], saved[task] = int(values[task]["ran"]), int(values[task]["global_step"])
    # Every step is one update of the ps' global step; each task stops on seeing
    # 600. The chief writes the last checkpoint before it reads it back; the
    # worker may read an earlier one (it can finish before the chief saves).
    total = ran["chief"] + ran["worker"]
    assert ran["chief"] > 0 and ran["worker"] > 0 and 600 <= total <= 602
    assert 600 <= saved["chief"] <= total and saved["worker"] <= total
    assert float(values["chief"]["accuracy"]) > 0.85


@pytest.mark.parametrize("route", ["multiworker", "contrib_collective"])
def test_multi_worker_mirrored_estimator_trains_as_one_device(tmp_path, route):
    # MultiWorkerMirroredStrategy on chief + worker (collective all-reduce over
    # gRPC), an evaluator evaluating each checkpoint. Both workers read the same
    # unshuffled batches, so the all-reduced gradient is one device's: the
    # chief's evaluation equals one device's run on the same batches to every
    # printed digit (measured: acc 0.865, loss 0.4759889841079712, 100 steps).
    # contrib_collective: TF 1.13's tf.contrib.distribute.CollectiveAllReduceStrategy.
    values = _run_cluster(tmp_path, route, ("chief", "worker", "evaluator"))
    assert [values[t]["done"] for t in ("chief", "worker", "evaluator")] == [
        "chief", "worker", "evaluator"]  # fmt: skip
    assert json.loads(values["chief"]["devices"]) == ["/job:chief/replica:0/task:0/device:CPU:0"]
    assert json.loads(values["worker"]["devices"]) == ["/job:worker/replica:0/task:0/device:CPU:0"]
    alone = run_legacy_script("--v1", tmp_path, str(PROGRAM), str(tmp_path / "one"), "mirrored",
                              "1", BATCH)  # fmt: skip
    assert json.loads(values["chief"]["result"]) == json.loads(alone["result"])
    assert json.loads(alone["result"])["global_step"] == 100
    assert list((tmp_path / "model" / "eval").glob("events.out.tfevents.*"))


def test_parameter_server_strategy_estimator_puts_variables_on_the_ps_task(tmp_path):
    # ParameterServerStrategy (v1) on chief + worker + ps: the coordinator starts
    # each task's server, the variables live on the ps task.
    values = _run_cluster(tmp_path, "ps_strategy", ("chief", "worker"), serving=("ps",))
    for task in ("chief", "worker"):
        assert json.loads(values[task]["devices"]) == ["/job:ps/task:0"]
    result = json.loads(values["chief"]["result"])
    assert result["global_step"] >= 100 and result["acc"] > 0.8
