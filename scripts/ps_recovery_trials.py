"""Trials of recovery from a lost parameter server, with figures.

    python scripts/ps_recovery_trials.py [--trials 5] [--modes async sync]

Each trial runs ps0, worker0 (the chief) and worker1 of mlp on the embedded
digits on 127.0.0.1, SIGKILLs ps0 once the chief passed global step 150
(checkpoints every 50 steps), restarts it on the same port, and waits for the
job to finish without restarting a worker. Per trial it prints the step at the
kill, the checkpoint the chief restored, the steps redone, the seconds from
the kill to the chief's first step after restoring into the restarted ps,
and every exit status; then one
line per mode. Exit status 0 when every trial recovered.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tf1_train.cluster import spec  # noqa: E402

STEPS, EVERY, KILL_AFTER = 600, 50, 150
FLAGS = [
    "--model=mlp",
    "--device=cpu",
    "--batch_size=32",
    "--optimizer=momentum",
    "--learning_rate=0.05",
    "--num_warmup_steps=0",
    f"--train_steps={STEPS}",
    f"--save_checkpoint_steps={EVERY}",
    "--display_every=5",
    "--startup_timeout_secs=60",
]
STEP = re.compile(r"^step (\d+)/", re.M)


def _start(name, ps, workers, flags, logdir, run):
    job, index = name[:-1], name[-1]
    argv = [sys.executable, "-m", "tf1_train.main", f"--job_name={job}", f"--task_index={index}"]
    argv += [f"--ps_hosts={ps}", f"--worker_hosts={','.join(workers)}", *flags]
    out = open(os.path.join(logdir, f"{name}.{run}.out"), "w")
    err = open(os.path.join(logdir, f"{name}.{run}.err"), "w")
    return subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err)


def _read(logdir, name, run=1, stream="out"):
    with open(os.path.join(logdir, f"{name}.{run}.{stream}")) as f:
        return f.read()


def _stepped_after_restore(chief: str) -> bool:
    """The chief printed a step after restoring a checkpoint into the new ps."""
    restored = chief.rfind("resuming from ")
    return restored != -1 and STEP.search(chief, restored) is not None


def trial(mode: str, logdir: str) -> dict:
    """One kill and restart of ps0; the figures of the trial."""
    ports = spec.free_ports(3)
    ps, workers = f"127.0.0.1:{ports[0]}", [f"127.0.0.1:{p}" for p in ports[1:]]
    flags = FLAGS + [f"--train_dir={logdir}/train"]
    flags += ["--sync_replicas"] if mode == "sync" else []
    procs = {n: _start(n, ps, workers, flags, logdir, 1) for n in ("ps0", "worker0", "worker1")}
    try:
        deadline = time.monotonic() + 300
        while max(map(int, STEP.findall(_read(logdir, "worker0"))), default=0) < KILL_AFTER:
            if time.monotonic() > deadline or procs["worker0"].poll() is not None:
                return {"recovered": False, "why": "the chief never reached the kill step"}
            time.sleep(0.05)
        at_kill = max(map(int, STEP.findall(_read(logdir, "worker0"))))
        procs["ps0"].send_signal(signal.SIGKILL)
        killed = time.monotonic()
        procs["ps0"].wait()
        procs["ps0"] = _start("ps0", ps, workers, flags, logdir, 2)
        first_after = None
        while procs["worker0"].poll() is None and time.monotonic() - killed < 300:
            if first_after is None and _stepped_after_restore(_read(logdir, "worker0")):
                first_after = time.monotonic() - killed
            time.sleep(0.05)
        codes = {n: p.wait(timeout=120) for n, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    chief = _read(logdir, "worker0")
    restored = [int(s) for s in re.findall(r"resuming from \S+model\.ckpt-(\d+) ", chief)]
    final = max(map(int, STEP.findall(chief)), default=0)
    return {
        "recovered": all(c == 0 for c in codes.values()) and bool(restored) and final >= STEPS,
        "at_kill": at_kill,
        "restored": restored[-1] if restored else None,
        "redone": at_kill - restored[-1] if restored else None,
        "seconds": first_after,
        "codes": codes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--modes", nargs="+", default=["async", "sync"])
    args = parser.parse_args()
    failed = 0
    for mode in args.modes:
        results = []
        for i in range(args.trials):
            with tempfile.TemporaryDirectory(prefix=f"ps_recovery_{mode}_") as logdir:
                r = trial(mode, logdir)
            results.append(r)
            print(f"{mode} trial {i + 1}: {r}", flush=True)
        ok = [r for r in results if r["recovered"]]
        failed += len(results) - len(ok)
        secs = [r["seconds"] for r in ok if r["seconds"] is not None]
        redone = [r["redone"] for r in ok]
        print(
            f"{mode}: {len(ok)}/{len(results)} recovered without restarting a worker; "
            "kill to the chief's first step after the restore: median "
            f"{statistics.median(secs):.1f} s "
            f"(min {min(secs):.1f}, max {max(secs):.1f}); steps redone: median "
            f"{statistics.median(redone):g} (max {max(redone)})"
            if ok and secs
            else f"{mode}: {len(ok)}/{len(results)} recovered",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
