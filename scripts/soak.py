"""Long-run stability: train for a while with periodic checkpoints, watch RSS.

    python scripts/soak.py --minutes 20 [-- extra training flags]

Starts one training process (python -m tf1_train.main) with a step count it
will not reach, samples its resident set size from /proc every few seconds,
stops it with SIGTERM at the deadline (it saves and exits 0), and reports
RSS over time. Growth is measured from the end of the warm-up (the first
fifth of the run, when graphs, allocators and caches fill) to the mean of the
last fifth; the project's bar is under 5%. Not part of CI: it takes minutes.
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


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS")


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
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    start, samples = time.time(), []
    deadline = start + args.minutes * 60
    while time.time() < deadline and proc.poll() is None:
        samples.append((round(time.time() - start, 1), round(rss_mb(proc.pid), 1)))
        time.sleep(args.interval)
    if proc.poll() is not None:
        print(proc.stderr.read().decode()[-2000:], file=sys.stderr)
        return 1
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=120)
    n = len(samples)
    warm = samples[max(n // 5, 1) - 1][1]
    tail = [r for _, r in samples[-max(n // 5, 1) :]]
    growth = (sum(tail) / len(tail) - warm) / warm
    steps = None
    summary_path = os.path.join(train_dir, "run_summary.json")
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            steps = json.load(f).get("global_step")
    result = {
        "minutes": args.minutes,
        "samples": samples,
        "rss_after_warmup_mb": warm,
        "rss_last_fifth_mean_mb": round(sum(tail) / len(tail), 1),
        "growth": round(growth, 4),
        "global_step": steps,
        "exit_status_after_sigterm": code,
        "train_dir": train_dir,
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(
        f"RSS after warm-up {warm:.1f} MB, last fifth {result['rss_last_fifth_mean_mb']} MB: "
        f"growth {100 * growth:.2f}% over {args.minutes} min, {steps} steps; exit {code}"
    )
    return 0 if growth < 0.05 and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
