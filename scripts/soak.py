"""Long-run stability: train for a while with periodic checkpoints, watch RSS.

    python scripts/soak.py --minutes 20 [-- extra training flags]

Starts one training process (python -m tf1_train.main) with a step count it
will not reach, samples its resident set size from /proc every few seconds,
stops it with SIGTERM at the deadline (it saves and exits 143), and reports
RSS over time. Growth is measured from the end of the warm-up (the first
fifth of the run, when graphs, allocators and caches fill) to the mean of the
last fifth; the project's bar is under 5%. Not part of CI: it takes minutes.

The baseline is the mean of the samples in the twentieth of the run right
after warm-up, not one sample: RSS wobbles while a checkpoint or an eval
runs, and a single low or high sample would fake growth or hide it. The
child's output goes to ``<train_dir>/soak.log`` (a pipe nobody reads would
fill and stall the run).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Tuple

# How long a process that got SIGTERM may take to save and exit.
STOP_TIMEOUT_S = 120


def rss_mb(pid: int) -> Optional[float]:
    """Resident set size in MB, or None if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except FileNotFoundError:
        pass
    return None


def growth(samples: List[Tuple[float, float]]) -> Tuple[float, float, float]:
    """(baseline MB, last-fifth mean MB, relative growth) of (time, rss) samples."""
    rss = [r for _, r in samples]
    n = len(rss)
    fifth = max(n // 5, 1)
    base_window = rss[fifth : fifth + max(n // 20, 1)] or rss[-1:]
    base = sum(base_window) / len(base_window)
    tail = rss[-fifth:]
    last = sum(tail) / len(tail)
    return base, last, (last - base) / base


def stop(proc: subprocess.Popen) -> int:
    """SIGTERM, then a bounded wait; SIGKILL if the process does not exit."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"soak: no exit {STOP_TIMEOUT_S} s after SIGTERM; killing", file=sys.stderr)
        proc.kill()
        return proc.wait()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--out", default="soak_results.json")
    parser.add_argument("extra", nargs="*", help="training flags after --")
    args = parser.parse_args(argv)
    train_dir = tempfile.mkdtemp(prefix="soak_")
    cmd = [
        sys.executable, "-m", "tf1_train.main", "--num_gpus=2", "--model=lenet5",
        "--train_steps=100000000", "--save_checkpoint_steps=500", "--eval_every=2000",
        "--display_every=5000", f"--train_dir={train_dir}", *args.extra,
    ]  # fmt: skip
    log_path = os.path.join(train_dir, "soak.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    start, samples = time.time(), []
    deadline = start + args.minutes * 60
    while time.time() < deadline and proc.poll() is None:
        rss = rss_mb(proc.pid)
        if rss is not None:
            samples.append((round(time.time() - start, 1), round(rss, 1)))
        time.sleep(args.interval)
    if proc.poll() is not None or len(samples) < 5:
        proc.kill()
        with open(log_path) as f:
            print(f.read()[-2000:], file=sys.stderr)
        print(f"soak: training ended early (status {proc.wait()}); log {log_path}")
        return 1
    code = stop(proc)
    base, last, rel = growth(samples)
    steps = None
    summary_path = os.path.join(train_dir, "run_summary.json")
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            steps = json.load(f).get("global_step")
    result = {
        "minutes": args.minutes,
        "samples": samples,
        "rss_after_warmup_mb": round(base, 1),
        "rss_last_fifth_mean_mb": round(last, 1),
        "growth": round(rel, 4),
        "global_step": steps,
        "exit_status_after_sigterm": code,
        "train_dir": train_dir,
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(
        f"RSS after warm-up {base:.1f} MB, last fifth {last:.1f} MB: "
        f"growth {100 * rel:.2f}% over {args.minutes} min, {steps} steps; exit {code}"
    )
    return 0 if rel < 0.05 and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
