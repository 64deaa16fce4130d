"""Who is in a between-graph cluster, and whether this task can join it.

The cluster comes from tf_cnn_benchmarks' flags (``--ps_hosts``,
``--worker_hosts``, ``--job_name``, ``--task_index``) or, when none of those
is given, from the ``TF_CONFIG`` environment variable that Kubeflow's TFJob
and other schedulers set::

    {"cluster": {"chief": ["h0:2222"], "worker": ["h1:2222"], "ps": ["h2:2222"]},
     "task": {"type": "worker", "index": 0}}

A ``chief`` task (or ``master``, TFJob's name for it) is worker 0 here and
TF_CONFIG's workers follow it as workers 1..n: tf_cnn_benchmarks and
replica_device_setter know only ps and worker jobs, and every task reading
the same TF_CONFIG builds the same ClusterSpec, so the renumbering is
consistent across the job.

This module imports no TensorFlow: ``main.py`` resolves the cluster before
TensorFlow is loaded, and the launcher uses the port helpers.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time
from typing import List, Optional, Sequence, Tuple

from tf1_train.config import ClusterConfig, parse_address
from tf1_train.errors import ClusterError, UserError

TF_CONFIG_EXAMPLE = (
    '{"cluster": {"ps": ["host:port"], "worker": ["host:port", ...]}, '
    '"task": {"type": "worker", "index": 0}}'
)
TASK_TYPES = ("chief", "master", "worker", "ps")
CHIEF_TYPES = ("chief", "master")  # TFJob's Master replica is the chief


def resolve(flag_cfg: ClusterConfig, tf_config: Optional[str]) -> ClusterConfig:
    """The cluster flags if any is set, else TF_CONFIG if set, else no cluster.

    Args:
      flag_cfg: built from the flags, including sync_replicas and timeouts,
        which apply whichever source names the tasks.
      tf_config: the TF_CONFIG environment variable, or None.
    """
    flags_given = flag_cfg.job_name or flag_cfg.ps_hosts or flag_cfg.worker_hosts
    if flags_given or not tf_config:
        return flag_cfg
    ps, workers, job, index = parse_tf_config(tf_config)
    return dataclasses.replace(
        flag_cfg,
        ps_hosts=ps,
        worker_hosts=workers,
        job_name=job,
        task_index=index,
        source="TF_CONFIG",
    )


def _tf_config_error(what: str) -> UserError:
    return UserError(f"TF_CONFIG: {what}; expected {TF_CONFIG_EXAMPLE}")


def _host_list(cluster: dict, key: str) -> Tuple[str, ...]:
    hosts = cluster.get(key, [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts):
        raise _tf_config_error(f"cluster.{key} must be a list of 'host:port' strings")
    return tuple(hosts)


def parse_tf_config(text: str) -> Tuple[Tuple[str, ...], Tuple[str, ...], str, int]:
    """TF_CONFIG JSON -> (ps_hosts, worker_hosts with the chief first, job, index)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise _tf_config_error(f"not valid JSON ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cluster"), dict):
        raise _tf_config_error("missing the 'cluster' object")
    task = doc.get("task")
    if not isinstance(task, dict) or "type" not in task or "index" not in task:
        raise _tf_config_error("missing 'task' with 'type' and 'index'")
    cluster = doc["cluster"]
    unknown = sorted(set(cluster) - set(TASK_TYPES))
    if unknown:
        raise _tf_config_error(f"cluster has unsupported job(s) {unknown}")
    chief = _host_list(cluster, "chief") + _host_list(cluster, "master")
    if len(chief) > 1:
        raise _tf_config_error(
            f"cluster.chief and cluster.master list {len(chief)} tasks; at most one in all"
        )
    kind, index = task["type"], task["index"]
    if kind not in TASK_TYPES:
        raise _tf_config_error(f"task.type {kind!r} is not one of {', '.join(TASK_TYPES)}")
    if not isinstance(index, int) or isinstance(index, bool):
        raise _tf_config_error(f"task.index {index!r} is not a whole number")
    own = _host_list(cluster, kind)
    if not 0 <= index < len(own):
        raise _tf_config_error(
            f"task.index {index} is out of range: cluster.{kind} has {len(own)} task(s)"
        )
    workers = chief + _host_list(cluster, "worker")
    ps = _host_list(cluster, "ps")
    if kind == "ps":
        return ps, workers, "ps", index
    # The chief is worker 0; TF_CONFIG's worker i is worker i + 1 (module doc).
    return ps, workers, "worker", index + (len(chief) if kind == "worker" else 0)


def task_name(job: str, index: int) -> str:
    """'worker', 1 -> 'worker1': the label of a task in logs."""
    return f"{job}{index}"


def device_filters(job: str, index: int) -> List[str]:
    """Devices a task's sessions may see.

    A worker sees the parameter servers and itself, not the other workers,
    so a lost or slow worker cannot stall its peers' session setup. A ps
    sees only itself: its one session waits for the shutdown tokens.
    """
    if job == "ps":
        return [f"/job:ps/task:{index}"]
    return ["/job:ps", f"/job:worker/task:{index}"]


def port_in_use(port: int) -> bool:
    """True if binding ``port`` fails on 127.0.0.1 or on all interfaces.

    gRPC binds with SO_REUSEPORT, so a second TensorFlow server on a busy
    port would start "successfully" and share the traffic; binding a plain
    socket first is how the clash becomes an error.
    """
    for host in ("0.0.0.0", "127.0.0.1"):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            # SO_REUSEADDR: connections of a task that just died (TIME_WAIT)
            # do not count; a listening socket still does.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, port))
            except OSError:
                return True
    return False


def check_own_port(cfg: ClusterConfig) -> None:
    """Fails with the flag and the port if this task's port is taken."""
    address = cfg.hosts(cfg.job_name)[cfg.task_index]
    _, port = parse_address(address)
    if port_in_use(port):
        field = "ps_hosts" if cfg.job_name == "ps" else "worker_hosts"
        raise UserError(
            f"{cfg.name(field)}: port {port} of {task_name(cfg.job_name, cfg.task_index)} "
            f"({address}) is already in use on this machine; stop what holds it "
            "or give this task another port"
        )


def free_ports(count: int, host: str = "127.0.0.1") -> List[int]:
    """Ports the OS reports free right now (all held open until all are chosen)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def reachable(address: str, timeout: float = 1.0) -> bool:
    """True if a TCP connection to ``address`` opens within ``timeout``
    (name resolution included: a lookup that hangs counts as unreachable)
    and the other end does not then close or reset it without a word.

    A TensorFlow server speaks first (HTTP/2's SETTINGS frame, as soon as
    it accepts), so a live task answers at once. A task just killed does
    not: Linux releases a dead process's sockets newest first, so its peers
    see their connections reset (and a worker starts its recovery probe)
    while its older listening socket still completes handshakes for a
    moment, and resets each one when it goes. Such a port is not a task.
    One that accepts and stays silent (a frozen ps, another program) still
    counts after ``timeout``: the session's deadline then names it.
    """
    try:
        with _connect(address, timeout) as s:
            return _stays_open(s, timeout)
    except (OSError, ValueError):
        return False


def _stays_open(s: socket.socket, timeout: float) -> bool:
    """False if the peer closes the connection before sending anything;
    raises ConnectionResetError (an OSError) if it resets it."""
    s.settimeout(timeout)
    try:
        return s.recv(1) != b""
    except TimeoutError:
        return True


def refused(address: str, timeout: float = 1.0) -> bool:
    """True only if ``address`` actively refuses a connection: nothing listens
    there (a task that died). A frozen task's port still accepts, or times
    out once its backlog is full: that is not a refusal."""
    try:
        _connect(address, timeout).close()
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):
        pass
    return False


def _connect(address: str, timeout: float) -> socket.socket:
    """A connected socket (the caller closes it)."""
    host, port = parse_address(address)
    family, kind, proto, _, sockaddr = lookup_address(host, port, timeout)
    s = socket.socket(family, kind, proto)
    try:
        s.settimeout(timeout)
        s.connect(sockaddr)
    except BaseException:
        s.close()
        raise
    return s


def lookup_address(host: str, port: int, timeout: float):
    """The first getaddrinfo entry for a TCP connection, within ``timeout``.

    getaddrinfo has no timeout of its own (a DNS server that does not answer
    blocks it for the resolver's retries), so it runs in a daemon thread that
    is abandoned when it is late. Raises OSError when it fails or is late.
    """
    found: List = []

    def lookup() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as e:
            found.append(e)

    thread = threading.Thread(target=lookup, daemon=True, name=f"resolve {host}")
    thread.start()
    thread.join(timeout)
    if not found:
        raise OSError(f"looking up {host} took more than {timeout:g} s")
    if isinstance(found[0], OSError):
        raise found[0]
    return found[0][0]


def wait_for_tasks(
    cfg: ClusterConfig, job: str, indices: Sequence[int], timeout_secs: float
) -> None:
    """Waits until every listed task accepts connections, or fails clearly.

    TensorFlow's master waits forever for a task in the session's device
    filters ("CreateSession still waiting for response from worker"), so
    a worker probes the parameter servers first, with a deadline.
    """
    deadline = time.monotonic() + timeout_secs
    pending = list(indices)
    while pending:
        pending = [i for i in pending if not reachable(cfg.hosts(job)[i])]
        if not pending:
            return
        if time.monotonic() > deadline:
            names = ", ".join(f"{task_name(job, i)} at {cfg.hosts(job)[i]}" for i in pending)
            raise ClusterError(
                f"{cfg.name('ps_hosts' if job == 'ps' else 'worker_hosts')}: {names} not "
                f"reachable after {timeout_secs:g} s; start it, check the address, or "
                "raise --startup_timeout_secs"
            )
        time.sleep(0.2)
