"""Runs a whole ps/worker job on this machine, for trying the cluster path.

    python -m tf1_train.launch --num_ps=1 --num_workers=2 -- --flagfile=flags/launch.flags

Every task is ``python -m tf1_train.main`` with its cluster flags (or
TF_CONFIG with ``--use_tf_config``) on a free port of 127.0.0.1, followed by
the training flags after ``--``. Output is streamed line by line, prefixed
with the task (``[ps0] ...``, ``[worker1] ...``). The launcher exits with the
first non-zero status of any task (stopping the others), 0 when all finished
cleanly, 124 when ``--timeout_secs`` ran out, and 128 + N when signal N
(SIGTERM, SIGINT) stopped it, as its tasks do. Each task runs in its own
process group, signalled as a group, and dies with the launcher. The job
runs in a private network namespace where the platform allows it
(``--network``, ``netns``).

Flags of the training run are absl flags owned by ``main.py``; this module
parses only its own options, with argparse.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List, NamedTuple, Optional, Sequence, TextIO

from tf1_train.cluster import netns, spec

TIMEOUT_STATUS = 124
STOP_GRACE_SECS = 10  # SIGTERM first (tasks save on it), SIGKILL after this
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Task(NamedTuple):
    """One process of the job."""

    name: str  # ps0, worker1
    argv: List[str]
    env: Dict[str, str]


def parse_args(argv: Sequence[str]):
    """Launcher options, and the training flags after ``--``."""
    parser = argparse.ArgumentParser(
        prog="python -m tf1_train.launch",
        description="Start a ps/worker job on 127.0.0.1; flags after -- go to every task.",
    )
    parser.add_argument("--num_ps", type=int, default=1, help="parameter server tasks")
    parser.add_argument("--num_workers", type=int, default=2, help="worker tasks (0 is chief)")
    parser.add_argument(
        "--timeout_secs", type=float, default=1800, help="stop everything after this long"
    )
    parser.add_argument(
        "--network",
        choices=("private", "host"),
        default="private",
        help="private: run the job in its own network namespace, unreachable from "
        "outside (needs root or user namespaces; else a warning); host: this machine's",
    )
    parser.add_argument(
        "--use_tf_config",
        action="store_true",
        help="describe the cluster to each task in TF_CONFIG instead of flags",
    )
    argv = list(argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    if args.num_ps < 1 or args.num_workers < 1:
        parser.error("--num_ps and --num_workers must be >= 1")
    if args.timeout_secs <= 0:
        parser.error("--timeout_secs must be > 0")
    return args, argv[split + 1 :]


def plan_tasks(
    num_ps: int, num_workers: int, train_flags: Sequence[str], use_tf_config: bool
) -> List[Task]:
    """Addresses on free ports of 127.0.0.1 and each task's command line."""
    ports = spec.free_ports(num_ps + num_workers)
    ps = [f"127.0.0.1:{p}" for p in ports[:num_ps]]
    workers = [f"127.0.0.1:{p}" for p in ports[num_ps:]]
    base_env = dict(os.environ, PYTHONUNBUFFERED="1")
    base_env.pop("TF_CONFIG", None)
    tasks = []
    for job, count in (("ps", num_ps), ("worker", num_workers)):
        for i in range(count):
            argv = [sys.executable, "-m", "tf1_train.main"]
            env = dict(base_env)
            if use_tf_config:
                env["TF_CONFIG"] = json.dumps(
                    {"cluster": {"ps": ps, "worker": workers}, "task": {"type": job, "index": i}}
                )
            else:
                argv += [
                    f"--ps_hosts={','.join(ps)}",
                    f"--worker_hosts={','.join(workers)}",
                    f"--job_name={job}",
                    f"--task_index={i}",
                ]
            tasks.append(Task(spec.task_name(job, i), argv + list(train_flags), env))
    return tasks


def _stream(pipe: TextIO, out: TextIO, prefix: str, lock: threading.Lock) -> None:
    for line in pipe:
        with lock:
            out.write(f"[{prefix}] {line}" if line.endswith("\n") else f"[{prefix}] {line}\n")
            out.flush()
    pipe.close()


def _task_preexec():
    """A preexec_fn: unblocks SIGTERM/SIGINT (``start`` holds them, and a
    signal mask survives exec) and asks the kernel to SIGKILL the task when
    the launcher dies (PR_SET_PDEATHSIG).

    PR_SET_PDEATHSIG fires when the thread that forked the task ends, so
    ``start`` must run in a thread that lives as long as the launcher (its
    main thread). libc's prctl is looked up before forking: the child only
    makes the call; without it (not Linux) tasks do not die with a killed
    launcher.
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        prctl = None
    parent = os.getpid()

    def preexec() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
            if os.getppid() != parent:  # the launcher died before the call
                os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def start(tasks: Sequence[Task]):
    """Starts every task with its output streamed; returns (procs, threads).

    Each task gets its own session and process group, so a Ctrl-C in the
    terminal reaches only the launcher, which then sends each task's group
    one SIGTERM (a task's first signal saves and stops; a second one would
    end it at once). Each task dies with the launcher, even a SIGKILLed one
    (``_task_preexec``). SIGTERM/SIGINT are held while the tasks start,
    so a signal cannot leave a started task unrecorded.
    """
    lock = threading.Lock()
    procs, threads = [], []
    preexec = _task_preexec()
    held = _hold_stop_signals()
    try:
        for task in tasks:
            proc = subprocess.Popen(
                task.argv,
                env=task.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
                start_new_session=True,
                preexec_fn=preexec,
            )
            procs.append(proc)
            say(f"{task.name} started, pid {proc.pid}")
            for pipe, out in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
                t = threading.Thread(target=_stream, args=(pipe, out, task.name, lock), daemon=True)
                t.start()
                threads.append(t)
    finally:
        _release_stop_signals(held)
    return procs, threads


def _hold_stop_signals():
    """Blocks SIGTERM/SIGINT in this thread (main thread only); returns the old mask."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def _release_stop_signals(held) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _signal_group(p: subprocess.Popen, sig: int) -> None:
    """Signals the task's process group (its pid: it leads its session).

    Only while the task is unreaped: until then its pid, and so the group
    id, cannot belong to anyone else.
    """
    if p.returncode is not None:
        return
    try:
        os.killpg(p.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop(running: Dict[str, subprocess.Popen]) -> None:
    """Stops the workers, then the parameter servers: a SIGTERM'd chief saves
    its checkpoint, which reads the variables from the ps. SIGKILL for any
    task still alive after a grace period. Signals to the launcher are held
    meanwhile: a second Ctrl-C cannot cut the stop short and leave tasks."""
    workers = [p for name, p in running.items() if not name.startswith("ps")]
    ps = [p for name, p in running.items() if name.startswith("ps")]
    held = _hold_stop_signals()
    try:
        for group in (workers, ps):
            for p in group:
                _signal_group(p, signal.SIGTERM)
            deadline = time.monotonic() + STOP_GRACE_SECS
            for p in group:
                try:
                    p.wait(timeout=max(deadline - time.monotonic(), 0.1))
                except subprocess.TimeoutExpired:
                    _signal_group(p, signal.SIGKILL)
                    p.wait()
    finally:
        _release_stop_signals(held)


def exit_status(returncode: int) -> int:
    """A shell-style status: death by signal N becomes 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


def supervise(
    tasks: Sequence[Task],
    procs: Sequence[subprocess.Popen],
    timeout_secs: float,
    stop_request: Optional[StopRequest] = None,
) -> int:
    """Waits for all tasks, reporting each exit; the first failure or the
    timeout stops the rest. Returns the first non-zero status, else 0; when
    ``stop_request`` records a signal to the launcher, stops every task and
    returns 128 + that signal's number (130 for Ctrl-C, 143 for SIGTERM)."""
    deadline = time.monotonic() + timeout_secs
    running = {task.name: p for task, p in zip(tasks, procs)}
    failed = 0
    while running:
        if stop_request is not None and stop_request.signum:
            say(f"{signal.Signals(stop_request.signum).name} received; stopping all tasks")
            stop(running)
            _report_exits(running)
            return 128 + stop_request.signum
        for name, p in list(running.items()):
            if p.poll() is None:
                continue
            del running[name]
            status = exit_status(p.returncode)
            say(f"{name} exited with status {status}")
            if status and not failed:
                failed = status
                say("stopping the other tasks")
                stop(running)
        if running and time.monotonic() > deadline:
            say(f"timed out after {timeout_secs:g} s (--timeout_secs); stopping all tasks")
            stop(running)
            return TIMEOUT_STATUS
        time.sleep(0.1)
    return failed


def _report_exits(running: Dict[str, subprocess.Popen]) -> None:
    for name, p in running.items():
        say(f"{name} exited with status {exit_status(p.returncode)}")


def isolate(network: str) -> None:
    """Enters a private network namespace (``netns``) or says why not: the
    tasks' gRPC ports listen on all interfaces, unauthenticated."""
    exposed = (
        "the tasks' ports listen on all interfaces of this machine without "
        "authentication: whoever can reach it can run ops in them"
    )
    if network == "host":
        say(f"warning: --network=host: {exposed}")
        return
    why = netns.enter_private_network()
    if why:
        say(f"warning: no private network namespace ({why}); {exposed}")
    else:
        say(
            "network: the job runs in a private network namespace with only loopback; "
            "its ports cannot be reached from outside it"
        )


def say(message: str) -> None:
    print(f"[launch] {message}", file=sys.stderr, flush=True)


class StopRequest:
    """SIGTERM/SIGINT to the launcher, recorded (not raised) so no signal can
    interrupt ``start`` or ``stop`` half-way; ``supervise`` acts on it."""

    def __init__(self) -> None:
        self.signum = 0

    def __call__(self, signum, frame) -> None:
        del frame
        self.signum = self.signum or signum


def main(argv: Optional[Sequence[str]] = None) -> int:
    args, train_flags = parse_args(sys.argv[1:] if argv is None else argv)
    isolate(args.network)
    tasks = plan_tasks(args.num_ps, args.num_workers, train_flags, args.use_tf_config)
    for task in tasks:
        tf_config = f"TF_CONFIG='{task.env['TF_CONFIG']}' " if "TF_CONFIG" in task.env else ""
        say(f"{task.name}: {tf_config}python {' '.join(task.argv[1:])}")
    request = StopRequest()
    for sig in STOP_SIGNALS:
        signal.signal(sig, request)
    procs, threads = start(tasks)
    status = supervise(tasks, procs, args.timeout_secs, request)
    for t in threads:
        t.join(timeout=5)
    say(f"exit status {status}")
    return status


if __name__ == "__main__":
    sys.exit(main())
