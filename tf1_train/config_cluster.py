"""The between-graph cluster section of the configuration (``--ps_hosts``,
``--worker_hosts``, ``--job_name``, ``--task_index`` or TF_CONFIG) and its
validation. No absl, no TensorFlow."""

from __future__ import annotations

import dataclasses
from typing import Tuple

from tf1_train.config_checks import check, positive_int
from tf1_train.errors import UserError

JOBS = ("ps", "worker")


# Where a cluster field came from, for error messages: a flag, or a TF_CONFIG key.
_CLUSTER_NAMES = {
    "flags": {
        "ps_hosts": "--ps_hosts",
        "worker_hosts": "--worker_hosts",
        "job_name": "--job_name",
        "task_index": "--task_index",
    },
    "TF_CONFIG": {
        "ps_hosts": "TF_CONFIG cluster.ps",
        "worker_hosts": "TF_CONFIG cluster.chief + cluster.worker",
        "job_name": "TF_CONFIG task.type",
        "task_index": "TF_CONFIG task.index",
    },
}


def parse_address(address: str) -> Tuple[str, int]:
    """'host:port' (or '[v6]:port') -> (host, port); ValueError if malformed."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(address)
    return host.strip("[]"), int(port)


@dataclasses.dataclass(frozen=True)
class ClusterConfig:
    """A between-graph cluster and this process's task in it.

    An empty ``job_name`` means a single-process run. Worker 0 is the chief
    (TF_CONFIG's ``chief`` task becomes worker 0, its workers 1..n).
    ``source`` ("flags" or "TF_CONFIG") only changes how errors name a field.
    """

    ps_hosts: Tuple[str, ...] = ()
    worker_hosts: Tuple[str, ...] = ()
    job_name: str = ""
    task_index: int = 0
    sync_replicas: bool = False
    operation_timeout_secs: int = 60  # a lost task becomes an error after this
    startup_timeout_secs: int = 120  # waiting for parameter servers and the chief
    source: str = "flags"

    @property
    def distributed(self) -> bool:
        return bool(self.job_name)

    @property
    def is_chief(self) -> bool:
        """Worker 0 initialises, saves checkpoints and summaries."""
        return self.job_name == "worker" and self.task_index == 0

    @property
    def num_workers(self) -> int:
        return len(self.worker_hosts)

    def name(self, field: str) -> str:
        """How the user spelled ``field``: a flag or a TF_CONFIG key."""
        return _CLUSTER_NAMES[self.source][field]

    def hosts(self, job: str) -> Tuple[str, ...]:
        return self.ps_hosts if job == "ps" else self.worker_hosts

    def validate(self) -> None:
        positive_int(self.operation_timeout_secs, "operation_timeout_secs")
        positive_int(self.startup_timeout_secs, "startup_timeout_secs")
        if not self.distributed:
            self._validate_single_process()
            return
        self._validate_hosts()
        job = self.job_name
        if job not in JOBS:
            raise UserError(f"{self.name('job_name')}: got {job!r}; valid: ps, worker")
        count = len(self.hosts(job))
        if not 0 <= self.task_index < count:
            raise UserError(
                f"{self.name('task_index')}: got {self.task_index}, but there are "
                f"{count} {job} task(s); valid: 0..{count - 1}"
            )

    def _validate_single_process(self) -> None:
        for field in ("ps_hosts", "worker_hosts"):
            if getattr(self, field):
                raise UserError(
                    f"{self.name(field)}: given without --job_name; a cluster task "
                    "needs --job_name (ps or worker) and --task_index"
                )
        check(
            not self.sync_replicas,
            "sync_replicas",
            "needs a cluster (--job_name, --ps_hosts, --worker_hosts, or TF_CONFIG)",
        )

    def _validate_hosts(self) -> None:
        for field, job in (("ps_hosts", "ps"), ("worker_hosts", "worker")):
            hosts = getattr(self, field)
            if not hosts:
                raise UserError(
                    f"{self.name(field)}: empty; between-graph training needs at "
                    f"least one {job} task (host:port, comma-separated)"
                )
            for address in hosts:
                try:
                    parse_address(address)
                except ValueError:
                    raise UserError(
                        f"{self.name(field)}: {address!r} is not host:port with a port in 1..65535"
                    ) from None
        every = self.ps_hosts + self.worker_hosts
        twice = sorted({a for a in every if every.count(a) > 1})
        if twice:
            raise UserError(
                f"{self.name('worker_hosts')}: {', '.join(twice)} listed more than "
                "once across ps and worker tasks; every task needs its own host:port"
            )
