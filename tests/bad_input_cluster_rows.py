"""Bad-input rows for between-graph clusters (flags, TF_CONFIG, ports);
tests/test_bad_input.py runs them with the rest of the table, one at a time
(they share the module's ports)."""

from __future__ import annotations

from tests.bad_input_rows import Bad

# Between-graph clusters: flags, TF_CONFIG, ports. {busy} is a port held open
# (listening) by this module for the duration of the tests.
PS = "--ps_hosts=127.0.0.1:{free0}"
WORKERS = "--worker_hosts=127.0.0.1:{free1},127.0.0.1:{free2}"
WORKER = ["--job_name=worker", PS, WORKERS]


def _tf_config(cluster: str, task: str) -> dict:
    return {"TF_CONFIG": f'{{"cluster": {cluster}, "task": {task}}}'}


CLUSTER = [
    Bad(
        "ps_hosts not host:port",
        ["--job_name=worker", "--ps_hosts=nohost", WORKERS],
        "--ps_hosts: 'nohost'",
        "is not host:port",
    ),
    Bad("worker_hosts port 0", ["--job_name=worker", PS, "--worker_hosts=h:0"], "'h:0'", "port"),
    Bad("ps_hosts empty", ["--job_name=worker", WORKERS], "--ps_hosts", "empty"),
    Bad("job_name unknown", ["--job_name=chief", PS, WORKERS], "--job_name", "valid: ps, worker"),
    Bad("task_index out of range", WORKER + ["--task_index=2"], "--task_index", "2 worker"),
    Bad("task_index negative", WORKER + ["--task_index=-1"], "--task_index: got -1", "task"),
    Bad("hosts without job_name", [PS, WORKERS], "--ps_hosts", "without --job_name"),
    Bad("sync_replicas without cluster", ["--sync_replicas"], "--sync_replicas", "needs a cluster"),
    Bad(
        "tf2 in a cluster",
        WORKER,
        "--job_name=worker: a ps/worker cluster is the TF1 entry point's",
        "the TF2 path trains in one process",
        module="tf1_train.tf2.main",
    ),
    Bad(
        "hooks in a cluster",
        WORKER + ["--hooks=tests.user_models.hooks:counting"],
        "--hooks",
        "a cluster worker runs no SessionRunHooks",
    ),
    Bad(
        "replicated in a cluster",
        WORKER + ["--variable_update=replicated"],
        "--variable_update",
        "a cluster",
    ),
    Bad(
        "operation_timeout_secs=0",
        WORKER + ["--operation_timeout_secs=0"],
        "--operation_timeout_secs",
        ">= 1",
    ),
    Bad("TF_CONFIG not JSON", [], "TF_CONFIG", "expected {", env={"TF_CONFIG": '{"cluster": '}),
    Bad(
        "TF_CONFIG task index out of range",
        [],
        "TF_CONFIG: task.index 1",
        "expected {",
        env=_tf_config('{"worker": ["127.0.0.1:1"]}', '{"type": "worker", "index": 1}'),
    ),
    Bad(
        "TF_CONFIG unknown task type",
        [],
        "TF_CONFIG: task.type 'boss'",
        "is not one of chief, master, worker, ps",
        env=_tf_config('{"worker": ["127.0.0.1:1"]}', '{"type": "boss", "index": 0}'),
    ),
    Bad(
        "busy port",
        ["--job_name=ps", "--task_index=0", "--ps_hosts=127.0.0.1:{busy}", WORKERS],
        "--ps_hosts: port {busy} of ps0",
        "stop what holds it or give this task another port",
    ),
]
